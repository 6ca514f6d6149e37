"""`acrag eval` end to end: real MiniLM index, real SmolLM2 through the real graph."""

import json
from pathlib import Path

import pytest

from app.cli import main
from bench.harness.records import read_records

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "qa" / "nq.dev.jsonl"


@pytest.fixture
def three_questions(tmp_path) -> Path:
    if not SHARED.is_file():
        pytest.skip("the shared QA data is not available")
    lines = SHARED.read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "nq3.dev.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_three_questions_two_strategies_end_to_end(tmp_path, three_questions):
    def argv_for(folder: Path) -> list[str]:
        return [
            "--home",
            str(tmp_path / "home"),
            "eval",
            "--data",
            str(three_questions),
            "--model",
            "smollm2",  # the harness is under test, not the reader: the fast model will do
            "--strategies",
            "no-retrieval,single",
            "--out",
            str(folder),
            "--no-warm-up",
        ]

    out = tmp_path / "out"
    argv = argv_for(out)
    assert main(argv) == 0
    records = list(read_records(out / "records.jsonl").values())
    assert len(records) == 6
    assert all(r.error is None and r.prediction for r in records)
    for r in records:
        assert r.llm_calls >= 1 and r.prompt_tokens > 0 and r.generated_tokens > 0
        assert r.seconds > 0 and 0 <= r.f1 <= 1
        assert r.route == ("A" if r.strategy == "no-retrieval" else "B")
        assert r.retrieval_calls == (0 if r.strategy == "no-retrieval" else 1)
    single = [r for r in records if r.strategy == "single"]
    closed = [r for r in records if r.strategy == "no-retrieval"]
    assert min(r.prompt_tokens for r in single) > max(r.prompt_tokens for r in closed)
    assert "| single | 3 |" in (out / "results.md").read_text()
    assert (out / "f1_vs_time.png").is_file()

    # Resume: nothing left to run, the file is unchanged.
    before = (out / "records.jsonl").read_text()
    assert main(argv) == 0
    assert (out / "records.jsonl").read_text() == before

    # A fresh results folder with the same settings answers every LLM call from the cache.
    again = tmp_path / "again"
    assert main(argv_for(again)) == 0
    cached = {r.key[:4]: r for r in read_records(again / "records.jsonl").values()}
    for r in records:
        twin = cached[r.key[:4]]
        assert twin.prediction == r.prediction
        assert twin.cache_hits == twin.llm_calls == r.llm_calls
    assert json.loads((again / "summary.json").read_text())["0"]
