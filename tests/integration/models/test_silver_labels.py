"""Silver labels from the real graph: SmolLM2 answers two questions by routes A, B and C."""

import json
from pathlib import Path

import pytest

from bench.harness.data import load_questions
from bench.harness.runner import GraphRunner
from training.silver import LabelConfig, run_to_file

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "qa" / "nq.train.jsonl"
FAST = {"max_answer_tokens": 16, "ircot_max_steps": 1, "candidates": 1, "top_k": 2}
"""Small caps keep the test near 30 s; the labelling run itself uses the graph's defaults."""


def test_two_questions_are_labelled_by_the_graph_and_resume(tmp_path: Path) -> None:
    if not SHARED.is_file():
        pytest.skip("the shared QA data is not available")
    pool = load_questions([SHARED], limit=12)
    config = LabelConfig("local", tmp_path / "indexes", index_passages=6, every_route=True)
    out = tmp_path / "silver.jsonl"
    runner = GraphRunner(model="local", settings=FAST)
    assert run_to_file(pool[:2], runner, out, config=config, pool=pool) == 2
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [q.id for q in pool[:2]]
    for row in rows:
        assert row["reader"] == "local" and row["index_passages"] == 6
        assert set(row["predictions"]) == set(row["correct"]) == {"A", "B", "C"}
        assert all(row["predictions"].values())
        assert row["label"] in ("A", "B", "C") and row["source"] in ("silver", "bias")
    assert run_to_file(pool[:2], runner, out, config=config, pool=pool) == 0
