import json
from pathlib import Path

import pytest

from bench.harness.evaluate import EvalConfig
from bench.harness.runner import Outcome

ANSWERS = {"q0": "Paris", "q1": "Rome", "q2": "Oslo"}


class FakeRunner:
    """Answer right only with retrieval; `fail_on` raises, `stop_after` simulates a kill."""

    def __init__(self, *, stop_after=None, fail_on=()):
        self.calls = []
        self.stop_after = stop_after
        self.fail_on = set(fail_on)

    def run(self, question, strategy, *, home):
        if self.stop_after is not None and len(self.calls) >= self.stop_after:
            raise KeyboardInterrupt
        self.calls.append((question, strategy))
        if (question, strategy) in self.fail_on:
            raise RuntimeError("graph broke")
        right = strategy != "no-retrieval" and not (question == "q2" and strategy == "single")
        return Outcome(
            prediction=ANSWERS[question] if right else "I do not know",
            route={"no-retrieval": "A", "ircot": "C"}.get(strategy, "B"),
            llm_calls=1,
            retrieval_calls=0 if strategy == "no-retrieval" else 1,
            prompt_tokens=10,
            generated_tokens=2,
            seconds=0.5,
        )


def fake_ingest(jsonl, home, collection):
    assert jsonl.read_text().strip()


@pytest.fixture
def data_file(tmp_path) -> Path:
    path = tmp_path / "toy.dev.jsonl"
    rows = [
        {
            "id": f"id{i}",
            "dataset": "toy",
            "hop": "single",
            "question": f"q{i}",
            "answers": [answer],
            "passages": [
                {"title": answer, "text": f"{answer} is a city.", "is_supporting": True},
                {"title": "X", "text": "X is a letter.", "is_supporting": False},
            ],
        }
        for i, answer in enumerate(ANSWERS.values())
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def config(tmp_path, data_file) -> EvalConfig:
    return EvalConfig(
        data=[data_file],
        out=tmp_path / "out",
        index_root=tmp_path / "indexes",
        strategies=["no-retrieval", "single", "ircot", "adaptive-oracle"],
    )
