"""The chat page in headless Chromium against `acrag serve --demo` (a model-free demo graph)."""

import json

from tests.integration.app.conftest import ARTIFACTS

STEP_ORDER = [
    "question",
    "route",
    "retrieval",
    "grades",
    "crag_action",
    "strips",
    "critique",
    "answer",
]
XSS_DOC = (
    "Zanzibar cloves are harvested by hand. "
    "<script>window.__xss = 'script ran'</script>"
    "<img src=x onerror=\"window.__xss = 'onerror ran'; alert('xss')\">"
)

# Record the order in which step elements enter the page, as they arrive.
_WATCH_STEPS = """() => {
  window.__stepLog = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes)
      if (n.classList && n.classList.contains('step'))
        window.__stepLog.push([n.dataset.type,
          document.querySelector('.turn:last-child .answer-text').textContent.length]);
  }).observe(document.getElementById('turns'), {childList: true, subtree: true});
}"""


def _ask(page, question: str) -> None:
    before = page.locator(".turn[data-done=true]").count()
    page.fill("#question", question)
    page.click("#ask")
    page.locator(".turn[data-done=true]").nth(before).wait_for(timeout=30_000)


def test_question_shows_steps_in_order_streams_the_answer_and_opens_citations(serve, page):
    server = serve("--demo")
    page.goto(f"{server.url}/ui/")
    page.wait_for_selector("body[data-ready=true]")
    page.evaluate(_WATCH_STEPS)
    _ask(page, "What is the capital of France?")

    log = page.evaluate("window.__stepLog")
    assert [kind for kind, _ in log] == STEP_ORDER
    # the retrieval steps were on screen before any answer text; the answer streamed in pieces
    assert all(length == 0 for kind, length in log if kind in ("route", "retrieval", "strips"))
    timing = page.evaluate("window.acragTimings[0]")
    assert 0 < timing["firstStep"] < timing["firstToken"] < timing["end"]
    route = page.locator(".step[data-type=route]").inner_text()
    assert "Route B" in route and "B 0.80" in route
    answer = page.locator(".answer-text").inner_text()
    assert answer.startswith("According to france.txt: Paris is the capital of France.")

    page.locator(".answer-text .cite").first.click()
    panel = page.locator("#citation-panel")
    assert panel.is_visible()
    assert page.locator("#citation-text").inner_text() == (
        "Paris is the capital of France. It lies on the Seine."
    )
    assert "france.txt" in page.locator("#citation-source").inner_text()
    page.screenshot(path=str(ARTIFACTS / "chat-answer-citation.png"), full_page=True)

    _ask(page, "Which river flows through Paris?")  # a follow-up in the same thread
    assert page.locator(".turn").count() == 2
    assert page.locator("#thread-list li").count() == 1
    assert page.errors == [] and page.dialogs == []


def test_threads_and_history_survive_a_server_restart(serve, page, tmp_path):
    home = tmp_path / "kept-home"
    first = serve("--demo", home=home)
    page.goto(f"{first.url}/ui/")
    page.wait_for_selector("body[data-ready=true]")
    _ask(page, "What is the capital of France?")
    _ask(page, "Which river flows through Paris?")
    first.stop()

    second = serve("--demo", home=home)
    page.goto(f"{second.url}/ui/")
    thread = page.locator("#thread-list button", has_text="What is the capital of France?")
    thread.wait_for()
    thread.click()
    page.wait_for_function("document.querySelectorAll('.turn').length === 2")
    questions = page.locator(".turn .question").all_inner_texts()
    assert questions == ["What is the capital of France?", "Which river flows through Paris?"]
    answers = page.locator(".turn .answer-text").all_inner_texts()
    assert answers[0].startswith("According to france.txt") and "Seine" in answers[1]
    assert page.locator(".turn:last-child .step").count() > 0  # the last turn's steps are back
    page.screenshot(path=str(ARTIFACTS / "chat-after-restart.png"), full_page=True)
    _ask(page, "And what about the Loire?")  # the conversation goes on after the restart
    assert page.locator(".turn").count() == 3


def test_markup_in_an_uploaded_document_is_shown_as_inert_text(serve, page, tmp_path):
    server = serve("--demo")
    doc = tmp_path / "payload.html.txt"
    doc.write_text(XSS_DOC)
    page.goto(f"{server.url}/ui/")
    page.wait_for_selector("body[data-ready=true]")
    page.set_input_files("#files", str(doc))
    page.click("#upload-button")
    page.locator("#status", has_text="indexed 1 file(s)").wait_for(timeout=120_000)
    assert page.evaluate("document.getElementById('upload-progress').value") == 100
    log = page.locator("#upload-log").inner_text()
    assert "payload.html.txt" in log and "failed" not in log

    _ask(page, "Who harvests Zanzibar cloves?")
    strips = page.locator(".step[data-type=strips]").inner_text()
    assert "<script>window.__xss = 'script ran'</script>" in strips
    assert "<img src=x onerror=" in page.locator(".answer-text").inner_text()
    page.locator(".answer-text .cite").first.click()
    assert "<img src=x onerror=" in page.locator("#citation-text").inner_text()

    page.wait_for_timeout(300)  # give an injected handler every chance to fire
    assert page.evaluate("window.__xss") is None
    assert page.locator("main img, aside img").count() == 0
    assert page.locator("main script, aside script").count() == 0
    assert page.dialogs == [] and page.errors == []
    page.screenshot(path=str(ARTIFACTS / "chat-inert-markup.png"), full_page=True)


def test_page_asks_for_the_token_when_the_server_needs_one(serve, page):
    server = serve("--demo", "--token", "letmein")
    page.goto(f"{server.url}/ui/")
    page.wait_for_selector("#token-form:not([hidden])")
    page.fill("#token", "letmein")
    page.click("#token-form button")
    _ask(page, "What is the capital of France?")
    assert "Paris" in page.locator(".answer-text").inner_text()
    stored = page.evaluate("sessionStorage.getItem('acrag-token')")
    assert json.dumps(stored) == '"letmein"'
