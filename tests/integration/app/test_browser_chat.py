"""The chat page in headless Chromium against `acrag serve --demo` (the real graph with fakes)."""

import json
import os
import shutil

from tests.integration.app.conftest import ARTIFACTS, REPO

SCREENSHOTS = REPO / "docs" / "screenshots"
UPDATE_SCREENSHOTS = "ACRAG_UPDATE_SCREENSHOTS"
"""Set to 1 to write the README screenshots to docs/screenshots/ (else test-artifacts/ only)."""

XSS_DOC = (
    "Zanzibar cloves are harvested by hand. "
    "<script>window.__xss = 'script ran'</script>"
    "<img src=x onerror=\"window.__xss = 'onerror ran'; alert('xss')\">"
)

# Record the order in which step elements enter the page, with the answer's length then.
_WATCH_STEPS = """() => {
  window.__stepLog = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes)
      if (n.classList && n.classList.contains('step'))
        window.__stepLog.push([n.dataset.type,
          document.querySelector('.turn:last-child .answer-text').textContent.length]);
  }).observe(document.getElementById('turns'), {childList: true, subtree: true});
}"""


def _open(page, url: str) -> None:
    page.goto(f"{url}/ui/")
    page.wait_for_selector("body[data-ready=true]")


def _ask(page, question: str) -> None:
    before = page.locator(".turn[data-done=true]").count()
    page.fill("#question", question)
    page.click("#ask")
    page.locator(".turn[data-done=true]").nth(before).wait_for(timeout=120_000)


def test_steps_arrive_before_the_streamed_answer_and_citations_open_sources(serve, page):
    server = serve("--demo")
    _open(page, server.url)
    page.evaluate(_WATCH_STEPS)
    _ask(page, "What is the capital of France?")

    log = page.evaluate("window.__stepLog")
    kinds = [kind for kind, _ in log]
    assert kinds[:2] == ["question", "route"] and kinds[-1] == "answer"
    assert all(length == 0 for kind, length in log if kind in ("route", "retrieval", "strips"))
    timing = page.evaluate("window.acragTimings[0]")
    assert 0 < timing["firstStep"] < timing["firstToken"] < timing["end"]
    assert page.locator(".how").get_attribute("open") is None  # calm: steps stay folded
    assert "Paris is the capital of France" in page.locator(".answer-text").inner_text()

    page.locator(".answer-text .cite").first.click()
    assert page.locator("#source-card").is_visible()
    assert page.locator("#card-source").inner_text() == "france.txt#0"
    assert "Paris is the capital of France." in page.locator("#card-text mark").inner_text()

    _ask(page, "Which river flows through Paris?")  # a follow-up in the same thread
    assert page.locator(".turn").count() == 2
    assert page.locator("#thread-list li").count() == 1
    assert page.errors == [] and page.dialogs == []


def test_every_turn_survives_a_server_restart(serve, page, tmp_path):
    home = tmp_path / "kept-home"
    first = serve("--demo", home=home)
    _open(page, first.url)
    _ask(page, "What is the capital of France?")
    _ask(page, "Which river flows through Paris?")
    first.stop()

    second = serve("--demo", home=home)
    _open(page, second.url)
    thread = page.locator("#thread-list button", has_text="What is the capital of France?")
    thread.wait_for()
    thread.click()
    page.locator(".turn[data-done=true]").nth(1).wait_for()
    questions = page.locator(".turn .question").all_inner_texts()
    assert questions == ["What is the capital of France?", "Which river flows through Paris?"]
    answers = page.locator(".turn .answer-text").all_inner_texts()
    assert "Paris" in answers[0] and "Seine" in answers[1]
    for turn in page.locator(".turn").all():  # each turn's steps and sources are back
        assert turn.locator(".step[data-type=route]").count() == 1
        assert turn.locator(".sources li").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "chat-after-restart.png"), full_page=True)
    _ask(page, "And what about the Loire?")  # the conversation goes on after the restart
    assert page.locator(".turn").count() == 3


def test_markup_in_an_uploaded_document_is_shown_as_inert_text(serve, page, tmp_path):
    server = serve("--demo")
    doc = tmp_path / "payload.html.txt"
    doc.write_text(XSS_DOC)
    _open(page, server.url)
    page.set_input_files("#files", str(doc))
    page.click("#upload-button")
    page.locator("#status", has_text="1 indexed (of 1 file)").wait_for(timeout=120_000)
    assert page.evaluate("document.getElementById('upload-progress').value") == 100
    assert "payload.html.txt" in page.locator("#upload-log").inner_text()

    _ask(page, "Who harvests Zanzibar cloves?")
    page.locator(".how > summary").click()
    page.locator(".step[data-type=strips] summary").first.click()
    strips = page.locator(".step[data-type=strips]").first.inner_text()
    assert "<script>window.__xss = 'script ran'" in strips
    page.locator(".answer-text .cite").first.click()
    assert "<img src=x onerror=" in page.locator("#card-text").inner_text()

    page.wait_for_timeout(300)  # give an injected handler every chance to fire
    assert page.evaluate("window.__xss") is None
    assert page.locator("main img, aside img").count() == 0
    assert page.locator("main script, aside script").count() == 0
    assert page.dialogs == [] and page.errors == []
    page.screenshot(path=str(ARTIFACTS / "chat-inert-markup.png"), full_page=True)


def test_page_asks_for_the_token_when_the_server_needs_one(serve, page, monkeypatch):
    monkeypatch.setenv("ACRAG_SERVE_TOKEN", "letmein")
    server = serve("--demo")
    page.goto(f"{server.url}/ui/")
    page.wait_for_selector("#token-form:not([hidden])")
    page.fill("#token", "letmein")
    page.click("#token-form button")
    _ask(page, "What is the capital of France?")
    assert "Paris" in page.locator(".answer-text").inner_text()
    stored = page.evaluate("sessionStorage.getItem('acrag-token')")
    assert json.dumps(stored) == '"letmein"'


def test_screenshots_of_an_answer_with_its_timeline_and_a_source_open(serve, browser):
    """The README's screenshots: 360 and 1366 px, timeline open, a source card open."""
    server = serve("--demo")
    warm = browser.new_context()  # the first run loads the demo's stand-ins: keep it out of view
    _open(warm_page := warm.new_page(), server.url)
    _ask(warm_page, "What is the capital of France?")
    warm.close()
    for width, height in ((360, 800), (1366, 820)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        _open(page, server.url)
        _ask(page, "Which river flows through Paris and what is the capital of France?")
        page.locator(".turn:last-child .how > summary").click()
        page.locator(".turn:last-child .step[data-type=critique] summary").click()
        page.locator(".turn:last-child .answer-text .cite").first.click()
        page.locator("#card-text mark").wait_for()
        page.wait_for_timeout(300)  # let the drawer and the card settle
        shot = ARTIFACTS / f"chat-{width}.png"
        page.screenshot(path=str(shot))
        if os.environ.get(UPDATE_SCREENSHOTS) == "1":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shot, SCREENSHOTS / shot.name)
        context.close()
