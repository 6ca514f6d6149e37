"""The classifier report: per route, per dataset, route A and hop kinds, on tiny fakes."""

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from models.judges import RouteDecision
from training.classifier_report import (
    chat_report,
    dataset_report,
    hop_kind,
    hop_mix,
    markdown_report,
    outcome_lines,
    route_scores,
    routing_outcome,
)
from training.evaluate import evaluate_classifier
from training.route_a import ChatExample


def record(qid: str, dataset: str, hop: str, question: str, **meta: Any) -> dict[str, Any]:
    return {"id": qid, "dataset": dataset, "hop": hop, "question": question, "meta": meta}


RECORDS = [
    record("n1", "nq", "single", "who wrote it"),
    record("n2", "nq", "single", "hello there"),  # silver A, predicted A
    record("h1", "hotpotqa", "multi", "which is older"),
    record("u1", "usrdoc", "single", "which zlib function", answerable=True),
    record("u2", "usrdoc", "multi", "what gid must tty have", answerable=True),
    record("u3", "usrdoc", "single", "zstd default level", answerable=False),
]
SILVER = {"n2": {"correct": {"A": True, "B": True, "C": False}}}


def test_route_scores_give_precision_recall_and_none_where_undefined() -> None:
    scores = route_scores(["A", "B", "B", "C"], ["B", "B", "C", "C"])
    assert scores["A"] == {"precision": None, "recall": 0.0, "support": 1, "predicted": 0}
    assert scores["B"] == {"precision": 0.5, "recall": 0.5, "support": 2, "predicted": 2}
    assert scores["C"] == {"precision": 0.5, "recall": 1.0, "support": 1, "predicted": 2}


def test_routing_outcome_scores_the_chosen_routes_against_single_and_the_oracle() -> None:
    def row(a: bool, b: bool, c: bool) -> dict[str, Any]:
        return {"correct": {"A": a, "B": b, "C": c}, "seconds": {"A": 1.0, "B": 2.0, "C": 10.0}}

    silver = {
        "q1": row(False, True, True),  # routed C: still right
        "q2": row(False, False, True),  # routed C: gained
        "q3": row(True, False, False),  # routed B: missed what A knew
        "q4": row(False, False, False),  # nobody right
        "q5": {"correct": {"A": True}},  # the ladder stopped early: not scored
    }
    found = routing_outcome(["q1", "q2", "q3", "q4", "q5", "q6"], list("CCBBAA"), silver)
    assert found is not None and found["questions"] == 4
    assert found["acc"] == {"single": 0.25, "routed": 0.5, "oracle": 0.75}
    assert found["gap_closed"] == pytest.approx(0.5)
    assert found["seconds"] == {"single": 2.0, "routed": 6.0, "ircot": 10.0, "questions": 4}
    assert routing_outcome(["q5"], ["A"], silver) is None
    del silver["q1"]["seconds"]["C"]  # a cached IRCoT run: q1 is not timed
    assert routing_outcome(["q1", "q2"], ["C", "C"], silver)["seconds"]["questions"] == 1
    untimed = {q: {"correct": row["correct"]} for q, row in silver.items()}
    assert routing_outcome(["q1"], ["B"], untimed)["seconds"] is None


def test_per_dataset_accuracy_and_mix() -> None:
    labels = [("B", "bias"), ("A", "silver"), ("C", "bias"), ("B", "bias")] + [("C", "bias")] * 2
    predicted = ["C", "A", "C", "B", "C", "B"]
    report = dataset_report(RECORDS, labels, predicted)
    assert list(report) == ["hotpotqa", "nq", "usrdoc"]
    assert report["nq"] == {
        "questions": 2,
        "accuracy": 0.5,
        "silver": 1,
        "silver_accuracy": 1.0,
        "route_mix": {"A": 1, "B": 0, "C": 1},
    }
    assert report["usrdoc"]["accuracy"] == pytest.approx(2 / 3)
    assert report["usrdoc"]["silver_accuracy"] is None


def test_hop_kinds_split_single_multi_and_unanswerable() -> None:
    assert [hop_kind(r) for r in RECORDS[3:]] == ["single", "multi-hop", "unanswerable"]
    assert hop_kind({"hop": "single"}) == "single"  # QA files carry no `meta`
    mix = hop_mix(RECORDS, ["B", "A", "C", "B", "C", "A"])
    assert mix["usrdoc"] == {
        "multi-hop": {"A": 0, "B": 0, "C": 1},
        "single": {"A": 0, "B": 1, "C": 0},
        "unanswerable": {"A": 1, "B": 0, "C": 0},
    }
    assert mix["nq"] == {"single": {"A": 1, "B": 1, "C": 0}}


def chat(text: str, route: str, kind: str) -> ChatExample:
    return ChatExample(text, route, kind, "dev")  # type: ignore[arg-type]


def test_chat_report_gives_a_recall_and_the_hard_negatives_b_rate() -> None:
    examples = [
        chat("hi", "A", "greeting"),
        chat("thanks", "A", "thanks"),
        chat("thanks! who built it?", "B", "thanks"),
        chat("hey, when was it built?", "B", "greeting"),
    ]
    report = chat_report(examples, ["A", "B", "B", "A"])
    assert (report["a_examples"], report["a_recall"]) == (2, 0.5)
    assert report["hard_negatives"] == 2
    assert (report["hard_negative_b_rate"], report["hard_negative_a_rate"]) == (0.5, 0.5)
    assert report["by_kind"]["B"]["greeting"] == {"A": 1, "B": 0, "C": 0}


@dataclass
class KeywordClassifier:
    """Route by keyword: greetings and thanks A, "which" C, anything else B."""

    manifest: dict[str, Any] = field(
        default_factory=lambda: {"training_data": {"label_counts": {"route_a": {"A": 3}}}}
    )

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        return [RouteDecision(self._route(q), {}, "keyword") for q in questions]

    @staticmethod
    def _route(question: str) -> Any:
        words = "".join(c for c in question.lower() if c.isalnum() or c == " ").split()
        if words[0] in ("hello", "hi", "thanks"):
            return "A"
        return "C" if "which" in words else "B"


@pytest.fixture
def files(tmp_path, monkeypatch) -> dict[str, Path]:
    monkeypatch.setattr("models.classifier.load_classifier", lambda artifact: KeywordClassifier())
    rows = [
        {"text": "hi", "route": "A", "kind": "greeting", "split": "dev"},
        {"text": "thanks!", "route": "A", "kind": "thanks", "split": "dev"},
        {"text": "what did I just ask?", "route": "A", "kind": "conversation", "split": "dev"},
        {"text": "hi, who built it?", "route": "B", "kind": "greeting", "split": "dev"},
        {"text": "hey", "route": "A", "kind": "greeting", "split": "train"},
    ]
    chat_file = tmp_path / "route_a.jsonl"
    chat_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    data = tmp_path / "usrdoc.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    silver = tmp_path / "silver.jsonl"
    silver.write_text(json.dumps({"id": "n2", **SILVER["n2"]}) + "\n")
    return {"route_a": chat_file, "data": data, "silver": silver}


def test_evaluate_classifier_reports_every_section(files) -> None:
    report = evaluate_classifier(
        RECORDS, labels_file=files["silver"], route_a_file=files["route_a"]
    )
    # predicted: n1 B, n2 A, h1 C, u1 C, u2 B, u3 B; gold: B, A, C, B, C, B
    assert report["accuracy"] == pytest.approx(4 / 6)
    assert report["silver"]["questions"] == 1 and report["silver"]["accuracy"] == 1.0
    assert report["datasets"]["usrdoc"]["route_mix"] == {"A": 0, "B": 2, "C": 1}
    assert report["hop_kinds"]["usrdoc"]["unanswerable"] == {"A": 0, "B": 1, "C": 0}
    assert report["route_a"]["a_examples"] == 3  # the train row stays out
    assert report["route_a"]["a_recall"] == pytest.approx(2 / 3)
    assert report["route_a"]["hard_negative_a_rate"] == 1.0
    assert report["trained_on"] == {"route_a": {"A": 3}}


def test_the_markdown_report_shows_the_tables(files) -> None:
    report = evaluate_classifier(
        RECORDS, labels_file=files["silver"], route_a_file=files["route_a"]
    )
    text = markdown_report(report)
    assert "3-way accuracy 100.0% on the 1 silver-labelled ones, 66.7% on all" in text
    assert "| A | 100.0% | 100.0% | 1 | 100.0% | 100.0% | 1 |" in text
    assert "| usrdoc | 3 | 33.3% | 0 | – | 0 | 2 | 1 |" in text
    assert "A recall 66.7% of 3; hard negatives routed B 0.0%, A 100.0% of 1." in text
    assert "| greeting | 1 | 0 | 0 | 1 | 0 | 0 |" in text
    assert "| usrdoc | unanswerable | 1 | 0 | 1 | 0 |" in text
    assert "| nq | single |" not in text  # one hop kind: the dataset row says it all
    assert "Acc single 100.0%, routed 100.0%, oracle 100.0% (no gap to close)" in text


def test_judges_eval_prints_the_classifier_as_tables(files, capsys) -> None:
    argv = ["judges", "eval", "--data", str(files["data"]), "--only", "classifier"]
    argv += ["--labels", str(files["silver"]), "--route-a", str(files["route_a"])]
    assert main([*argv, "--format", "table"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("files: [")
    assert "## classifier" in out and "| usrdoc | multi-hop | 1 | 0 | 1 | 0 |" in out
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["classifier"]["questions"] == len(RECORDS)


def test_the_outcome_line_gives_seconds_only_where_all_three_routes_were_timed() -> None:
    silver = {"q1": {"correct": {"A": False, "B": True, "C": True}}}
    outcome = routing_outcome(["q1"], ["C"], silver)
    line = outcome_lines(outcome)[0]
    assert "routed 100.0%" in line and "no uncached timing for all three routes" in line
    silver["q1"]["seconds"] = {"A": 1.0, "B": 2.0, "C": 10.0}
    line = outcome_lines(routing_outcome(["q1"], ["C"], silver))[0]
    assert "on the 1 timed by all three: single 2.0, routed 10.0, IRCoT 10.0" in line
