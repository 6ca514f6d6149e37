"""Bad inputs against the real MiniLM and embedded Chroma (tiny corpora, kept fast)."""

from pathlib import Path

import pytest

from app.cli import main
from graphs import Context, build_graph
from stores.ingest import ingest
from stores.retrieval import make_retriever
from tests.fakes import (
    FakeClassifier,
    FakeWebSearch,
    FixedSupport,
    FixedUsefulness,
    KeywordEvaluator,
    rule_model,
)

BASELINE = "# Baseline\n\nThe lighthouse keeper polished the brass lamp every evening.\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    docs = tmp_path / "baseline"
    docs.mkdir()
    (docs / "baseline.md").write_text(BASELINE)
    home = tmp_path / "home"
    assert main(["--home", str(home), "ingest", "--no-progress", str(docs)]) == 0
    return home


def search(home: Path, query: str) -> list[str]:
    return [d.metadata["title"] for d in make_retriever(home=home, k=3).invoke(query)]


def test_bad_batch_through_the_cli_skips_each_and_keeps_the_index(
    tmp_path: Path, home: Path, capsys
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.pdf").write_bytes(b"")
    (bad / "corrupt.pdf").write_bytes(b"%PDF-1.4\ngarbage")
    (bad / "nul.txt").write_bytes(b"\x00" * 100)
    with (bad / "big.txt").open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    (bad / "loop.md").symlink_to(bad / "loop.md")
    depth = 5000
    (bad / "deep.html").write_text("<div>" * depth + "Marmots dig burrows." + "</div>" * depth)
    (bad / "word.txt").write_text("Q" * 1_000_000)  # one 1 MB "word": cut by tokens, not words
    status = main(["--home", str(home), "ingest", "--no-progress", str(bad)])
    out = capsys.readouterr().out
    assert status == 1
    for name in ("empty.pdf", "corrupt.pdf", "nul.txt", "big.txt", "loop.md"):
        assert f"skipped {bad / name}:" in out
    assert "Baseline" in search(home, "lighthouse keeper brass lamp")
    assert "deep" in search(home, "marmots dig burrows")


def test_questions_in_other_scripts_run_over_the_real_index(home: Path) -> None:
    retriever = make_retriever(home=home, k=2)
    graph = build_graph(
        generator=rule_model(default="The keeper polished it."),
        rewriter=rule_model(default="lighthouse, lamp"),
        retriever=retriever,
        web_search=FakeWebSearch(),
        classifier=FakeClassifier("B"),
        evaluator=KeywordEvaluator(("lighthouse",)),
        support=FixedSupport(otherwise="full"),
        usefulness=FixedUsefulness(),
    )
    for question in (
        "灯塔看守人做了什么？",
        "Что делал смотритель маяка?",
        "ماذا فعل حارس المنارة؟",
        "🗼💡?",
    ):
        result = graph.invoke({"question": question}, context=Context(route="B"))
        assert result["answer"].startswith("The keeper polished it.")
        assert any(c["source"].endswith("baseline.md") for c in result["citations"])


def test_changed_file_reingested_with_the_real_index_replaces_old_chunks(
    tmp_path: Path, home: Path
) -> None:
    path = tmp_path / "moving.md"
    path.write_text("# Moving\n\nCapybaras are the largest rodents.\n")
    ingest([path], home=home, progress=False)
    path.write_text("# Moving\n\nTapirs have short trunks.\n")
    report = ingest([path], home=home, progress=False)
    assert (report.added, report.removed, report.total_chunks) == (1, 1, 2)
    assert search(home, "tapir trunk")[0] == "Moving"
    assert "Baseline" in search(home, "lighthouse keeper")
