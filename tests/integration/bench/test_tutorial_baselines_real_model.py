"""The tutorial baselines once each for real: MiniLM index, local web corpus, SmolLM2 reader."""

from pathlib import Path

import pytest

from bench.harness.runner import GraphRunner
from bench.harness.strategies import BASELINES
from graphs import Context

PASSAGES = {
    "paris.md": "# Paris\n\nParis is the capital and largest city of France, on the Seine.\n",
    "berlin.md": "# Berlin\n\nBerlin is the capital of Germany and its largest city.\n",
    "oslo.md": "# Oslo\n\nOslo is the capital of Norway, at the head of the Oslofjord.\n",
}
WEB_PAGES = {"france.md": "# France\n\nFrance is a country whose capital city is Paris.\n"}


@pytest.fixture(scope="module")
def tiny_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from stores.ingest import ingest
    from stores.web import LOCAL_WEB_COLLECTION

    home = tmp_path_factory.mktemp("tutorial-home")
    for folder, files in (("local", PASSAGES), ("web", WEB_PAGES)):
        (home / folder).mkdir()
        for name, text in files.items():
            (home / folder / name).write_text(text, encoding="utf-8")
    ingest([home / "local"], home=home, progress=False)
    ingest([home / "web"], home=home, collection=LOCAL_WEB_COLLECTION, progress=False)
    return home


@pytest.mark.parametrize("strategy", BASELINES)
def test_a_baseline_answers_one_question_and_reports_its_cost(tiny_home: Path, strategy: str):
    runner = GraphRunner(model="smollm2")  # the baselines' wiring is under test: the fast reader
    outcome = runner.run("What is the capital of France?", strategy, home=tiny_home)
    context = Context()
    documents = len(PASSAGES)  # top_k (4) is more than the index holds
    most = {
        "tutorial-crag": documents + 2,  # grades, a rewrite, the answer
        "tutorial-self-rag": (documents + 4) * (context.max_retries + 1),  # per pass, at most
    }[strategy]
    assert outcome.prediction and outcome.abstained is False
    assert documents + 1 <= outcome.llm_calls <= most
    assert outcome.prompt_tokens > 0 and outcome.generated_tokens > 0 and outcome.seconds > 0
    assert outcome.retrieval_calls >= 1 and outcome.route is None
    if strategy == "tutorial-self-rag":
        assert outcome.web_searches == 0
