"""The chat page on `acrag serve` with the real graph and the default local model."""

from tests.integration.app.conftest import ARTIFACTS

DOC = "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair."


def test_real_graph_upload_then_ask_shows_steps_and_a_cited_answer(serve, page, tmp_path):
    server = serve()
    doc = tmp_path / "eiffel.txt"
    doc.write_text(DOC)
    page.goto(f"{server.url}/ui/")
    page.wait_for_selector("body[data-ready=true]")
    page.set_input_files("#files", str(doc))
    page.click("#upload-button")
    page.locator("#status", has_text="1 indexed (of 1 file)").wait_for(timeout=120_000)

    page.fill("#question", "When was the Eiffel Tower completed?")
    page.click("#ask")
    page.locator(".turn[data-done=true]").wait_for(timeout=180_000)
    kinds = page.locator(".step").evaluate_all("(nodes) => nodes.map((n) => n.dataset.type)")
    assert kinds[:2] == ["question", "route"] and kinds[-1] == "answer"
    assert "retrieval" in kinds and kinds.index("retrieval") < kinds.index("answer")
    assert page.locator(".turn .error-text").count() == 0
    assert page.locator(".answer-text").inner_text().strip()
    timing = page.evaluate("window.acragTimings[0]")
    assert timing["firstStep"] < timing["end"]

    sources = page.locator(".turn .sources .cite")
    if sources.count():  # the evaluator kept the strip: its citation opens it
        sources.first.click()
        assert "Eiffel Tower" in page.locator("#card-text mark").inner_text()
        assert page.locator("#card-source").inner_text().startswith("eiffel.txt")
    assert "/uploads/" not in page.locator("main").inner_text()  # file names, not paths
    page.screenshot(path=str(ARTIFACTS / "real-graph-answer.png"), full_page=True)
    assert page.errors == []
