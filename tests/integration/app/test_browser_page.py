"""The chat page in headless Chromium at 360, 768 and 1366 px, against a scripted run API.

The fake API (`fake_api.py`) streams every event type of `graphs.events.EXAMPLE_EVENTS`, so
these tests pin the page to the event contract: a calm timeline, the answer first with
Markdown and source cards, every turn kept, Stop, keyboard use, labels, contrast, and each
uploaded file's own outcome.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.app.conftest import ARTIFACTS, free_port
from tests.integration.app.fake_api import FakeApi, serve_fake_api

WIDTHS = [360, 768, 1366]
NARROW = 900  # the chats list is a drawer below this width (app.css)


@pytest.fixture
def fake() -> Iterator[tuple[str, FakeApi]]:
    with serve_fake_api(free_port()) as served:
        yield served


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def page_at(browser, fake, request) -> Iterator[Any]:
    url, _ = fake
    width = request.param
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.errors = []
    page.width = width
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("dialog", lambda dialog: (page.errors.append(dialog.message), dialog.dismiss()))
    page.goto(f"{url}/ui/")
    page.wait_for_selector("body[data-ready=true]")
    yield page
    assert page.errors == []
    context.close()


def ask(page, question: str) -> Any:
    before = page.locator(".turn[data-done=true]").count()
    page.fill("#question", question)
    page.click("#ask")
    done = page.locator(".turn[data-done=true]").nth(before)
    done.wait_for(timeout=30_000)
    return done


def no_sideways_scroll(page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_timeline_is_calm_and_opens_on_click(page_at) -> None:
    turn = ask(page_at, "When was the Glassmere Lighthouse completed?")
    how = turn.locator(".how")
    assert how.get_attribute("open") is None and not turn.locator(".step").first.is_visible()
    assert "14 steps" in how.locator("> summary").inner_text()
    how.locator("> summary").click()
    lines = turn.locator(".step .step-line").all_inner_texts()
    assert len(lines) == 14  # one line per step, each with its time
    assert all(" s" in line.split("\n")[0] for line in lines)
    text = how.inner_text()
    assert "trained classifier: B (p=0.80)" in text
    assert "best 0.91 vs threshold 0.50" in text
    assert "kept 1 of 2 strips" in text
    assert "The lighthouse was completed in 1887." in text  # the IRCoT sentence
    assert "support full" in text
    strips = turn.locator(".step[data-type=strips]")
    assert not strips.locator(".step-details").is_visible()
    strips.locator("summary").click()  # details: one click deeper
    assert strips.locator(".step-details li.kept").count() == 1
    assert strips.locator(".step-details li.dropped").count() == 1
    assert "harbour.md#2" in strips.inner_text()
    assert "/home/" not in page_at.locator("body").inner_text()
    assert no_sideways_scroll(page_at)


def test_answer_first_with_markdown_and_source_cards(page_at) -> None:
    turn = ask(page_at, "When was the Glassmere Lighthouse completed?")
    answer = turn.locator(".answer-text")
    assert answer.locator("strong").inner_text() == "completed in 1887"
    assert answer.locator("li").count() == 2
    assert "<img src=x onerror=alert(1)>" in answer.inner_text()  # shown, not parsed
    assert page_at.locator("main img").count() == 0
    assert turn.locator(".sources li").count() == 1  # sources listed once
    assert "harbour.md#2" in turn.locator(".sources").inner_text()
    assert "Degraded: no web search" in turn.locator(".answer-notes").inner_text()
    answer.locator(".cite").click()
    card = page_at.locator("#source-card")
    assert card.is_visible() and card.locator("#card-title").inner_text().endswith(
        "Glassmere Lighthouse"
    )
    assert card.locator("#card-source").inner_text() == "harbour.md#2"
    assert card.locator("mark").inner_text() == "The Glassmere Lighthouse was completed in 1887."
    assert "It is white." in card.locator("#card-text").inner_text()
    box = card.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page_at.width + 1
    assert "/home/" not in page_at.locator("body").inner_text()
    assert no_sideways_scroll(page_at)
    page_at.screenshot(path=str(ARTIFACTS / f"page-answer-{page_at.width}.png"))


def test_a_revised_answer_replaces_the_streamed_draft_visibly(page_at) -> None:
    page_at.fill("#question", "Please revise this one")
    page_at.click("#ask")
    page_at.locator(".answer-text", has_text="first draft").wait_for()
    turn = page_at.locator(".turn[data-done=true]")
    turn.wait_for(timeout=30_000)
    assert "first draft" not in turn.locator(".answer-text").inner_text()
    assert "Revised after checking support" in turn.locator(".answer-notes").inner_text()
    timing = page_at.evaluate("window.acragTimings[0]")
    assert 0 < timing["firstStep"] < timing["firstToken"] < timing["end"]


def test_every_turn_is_kept_when_the_thread_is_reopened(page_at) -> None:
    ask(page_at, "When was the Glassmere Lighthouse completed?")
    ask(page_at, "Who kept it?")
    page_at.reload()
    page_at.wait_for_selector("body[data-ready=true]")
    if page_at.width < NARROW:
        page_at.click("#menu")
    page_at.locator("#thread-list button").first.click()
    page_at.locator(".turn[data-done=true]").nth(1).wait_for()
    turns = page_at.locator(".turn")
    questions = turns.locator(".question").all_inner_texts()
    assert questions == ["When was the Glassmere Lighthouse completed?", "Who kept it?"]
    for index in range(2):
        turn = turns.nth(index)
        assert turn.locator(".step").count() == 14
        assert "completed in 1887" in turn.locator(".answer-text").inner_text()
        assert turn.locator(".sources li").count() == 1
    turns.nth(0).locator(".answer-text .cite").click()
    assert page_at.locator("#card-text mark").is_visible()
    assert no_sideways_scroll(page_at)


def test_stop_cancels_the_run_and_the_page_is_usable_at_once(page_at, fake) -> None:
    _, api = fake
    page_at.fill("#question", "A slow question")
    page_at.click("#ask")
    page_at.locator(".step").first.wait_for(state="attached", timeout=10_000)
    page_at.click("#stop")
    assert page_at.locator("#ask").is_visible() and page_at.locator("#ask").is_enabled()
    assert not page_at.locator("#stop").is_visible()
    assert "Stopped" in page_at.locator(".turn .answer-notes").inner_text()
    assert page_at.evaluate("document.activeElement.id") == "question"
    for _ in range(20):
        if api.cancelled:
            break
        page_at.wait_for_timeout(50)
    assert len(api.cancelled) == 1  # the server was told, with the run_id from `metadata`
    ask(page_at, "And now a quick one")  # the thread goes on
    assert page_at.locator(".turn").count() == 2


def test_keyboard_only(page_at) -> None:
    keyboard = page_at.keyboard
    keyboard.press("Tab")  # the skip link comes first
    assert page_at.evaluate("document.activeElement.className") == "skip"
    keyboard.press("Enter")
    page_at.focus("#question")  # the skip link's target (what Enter did, made explicit)
    keyboard.type("When was the Glassmere Lighthouse completed?")
    keyboard.press("Enter")
    page_at.locator(".turn[data-done=true]").wait_for(timeout=30_000)
    page_at.focus(".how > summary")
    keyboard.press("Enter")
    assert page_at.locator(".how").get_attribute("open") is not None
    page_at.focus(".answer-text .cite")
    keyboard.press("Enter")
    assert page_at.locator("#source-card").is_visible()
    assert page_at.evaluate("document.activeElement.id") == "card-title"
    keyboard.press("Escape")
    assert not page_at.locator("#source-card").is_visible()
    assert page_at.evaluate("document.activeElement.classList.contains('cite')")
    if page_at.width < NARROW:  # the chats drawer opens and closes from the keyboard
        page_at.focus("#menu")
        keyboard.press("Enter")
        page_at.locator("#new-thread").wait_for(state="visible", timeout=2_000)
        keyboard.press("Tab")  # into the drawer: its first control
        assert page_at.evaluate("document.activeElement.id") == "new-thread"
        keyboard.press("Escape")
        page_at.locator("#new-thread").wait_for(state="hidden", timeout=2_000)
        assert page_at.evaluate("document.activeElement.id") == "menu"


_UNLABELLED = """() => [...document.querySelectorAll('button, input, textarea, summary, progress')]
  .filter((n) => n.getClientRects().length)
  .filter((n) => !(n.getAttribute('aria-label') || (n.labels && n.labels.length)
                   || n.textContent.trim()))
  .map((n) => n.outerHTML.slice(0, 80))"""

# WCAG relative luminance and contrast of each visible text node against its nearest opaque
# background; large text (>= 24px, or >= 18.66px bold) needs 3:1, the rest 4.5:1.
_LOW_CONTRAST = """() => {
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length < 4 || c[3] === 1) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const bad = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const node = t.parentElement;
    if (!t.textContent.trim() || !node.getClientRects().length) continue;
    const style = getComputedStyle(node);
    if (style.visibility !== 'visible' || node.closest('[hidden]')) continue;
    const [a, b] = [lum(rgb(style.color)), lum(background(node))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5))
      bad.push(`${ratio.toFixed(2)} ${node.tagName} ${t.textContent.slice(0, 30)}`);
  }
  return bad;
}"""


def test_labels_for_screen_readers_and_aa_contrast(page_at, tmp_path: Path) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("The lighthouse is white.")
    ask(page_at, "When was the Glassmere Lighthouse completed?")
    page_at.locator(".how > summary").click()
    page_at.locator(".step[data-type=strips] summary").click()
    page_at.locator(".answer-text .cite").click()
    assert page_at.evaluate(_UNLABELLED) == []
    assert page_at.evaluate(_LOW_CONTRAST) == []
    assert page_at.locator("main [aria-busy=true]").count() == 0
    if page_at.width < NARROW:
        page_at.keyboard.press("Escape")
        page_at.click("#menu")
    assert page_at.evaluate(_UNLABELLED) == []
    assert page_at.evaluate(_LOW_CONTRAST) == []


def test_upload_shows_each_files_own_outcome(page_at, tmp_path: Path) -> None:
    files = []
    for name in ("notes.txt", "report.docx", "old.md"):
        (tmp_path / name).write_text("text")
        files.append(str(tmp_path / name))
    if page_at.width < NARROW:
        page_at.click("#menu")
    page_at.set_input_files("#files", files)
    page_at.click("#upload-button")
    status = page_at.locator("#status", has_text="(of 3 files)")
    status.wait_for(timeout=10_000)
    assert status.inner_text() == "1 indexed, 1 unchanged, 1 skipped (of 3 files)"
    log = page_at.locator("#upload-log li")
    assert log.all_inner_texts()[1].split("\n")[:2] == ["report.docx", "skipped"]
    assert "unsupported type .docx" in log.nth(1).inner_text()
    assert page_at.locator("#upload-log .outcome-indexed").count() == 1
    assert no_sideways_scroll(page_at)
