import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.harness.data import BenchPassage, Question
from models.errors import UserError
from training.silver import (
    LabelConfig,
    dataset_corpus,
    label_question,
    labelled_ids,
    question_corpus,
    run_to_file,
    select_subset,
)


def question(qid: str, *, dataset: str = "nq", hop: str = "single", answer: str = "Paris"):
    passage = BenchPassage(f"T{qid}", f"{answer} is the answer to {qid}.", True)
    return Question(qid, dataset, hop, f"Question {qid}?", (answer,), (passage,))


@dataclass
class Answer:
    prediction: str
    logprob: float | None = None


class FakeRunner:
    """Right only on the routes listed per question; `stop_after` simulates a kill."""

    def __init__(self, right: dict[str, set[str]], *, stop_after=None, fail_on=()):
        self.right, self.stop_after, self.fail_on = right, stop_after, set(fail_on)
        self.calls: list[tuple[str, str, Path]] = []

    def run(self, question: str, strategy: str, *, home: Path) -> Answer:
        if self.stop_after is not None and len(self.calls) >= self.stop_after:
            raise KeyboardInterrupt
        self.calls.append((question, strategy, home))
        if question in self.fail_on:
            raise RuntimeError("graph broke")
        good = strategy in self.right.get(question, set())
        return Answer("It is Paris." if good else "I do not know", -0.1 if good else -2.0)


def fake_ingest(jsonl: Path, home: Path, collection: str) -> None:
    assert collection == "documents" and jsonl.read_text().strip()


def config(tmp_path: Path, reader: str = "fake") -> LabelConfig:
    return LabelConfig(reader, tmp_path / "indexes", index_passages=3)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_label_row_records_each_route_the_label_and_the_reader(tmp_path) -> None:
    q = question("q1", dataset="hotpotqa", hop="multi")
    runner = FakeRunner({"Question q1?": {"single", "ircot"}})
    row = label_question(q, runner, home=tmp_path, reader="local", every_route=True)
    assert [s for _, s, _ in runner.calls] == ["no-retrieval", "single", "ircot"]
    assert row["correct"] == {"A": False, "B": True, "C": True}
    assert (row["label"], row["source"], row["reader"]) == ("B", "silver", "local")
    assert row["predictions"]["B"] == "It is Paris."
    assert row["logprobs"] == {"A": -2.0, "B": -0.1, "C": -0.1}
    assert set(row["seconds"]) == {"A", "B", "C"}


def test_the_ladder_stops_at_the_first_correct_route(tmp_path) -> None:
    runner = FakeRunner({"Question q1?": {"single", "ircot"}})
    row = label_question(question("q1", hop="multi"), runner, home=tmp_path, reader="x")
    assert [s for _, s, _ in runner.calls] == ["no-retrieval", "single"]
    assert row["correct"] == {"A": False, "B": True} and row["label"] == "B"
    assert set(row["predictions"]) == set(row["seconds"]) == {"A", "B"}


def test_no_correct_route_takes_the_dataset_bias(tmp_path) -> None:
    row = label_question(question("q1", hop="multi"), FakeRunner({}), home=tmp_path, reader="x")
    assert (row["label"], row["source"]) == ("C", "bias")


def test_each_question_gets_its_own_index_with_same_dataset_distractors() -> None:
    pool = [question(f"q{i}") for i in range(6)] + [question("h1", dataset="hotpotqa")]
    corpus = question_corpus(pool[0], pool, passages=3, seed=5)
    titles = [p.title for p in corpus.local]
    assert titles[0] == "Tq0" and len(titles) == 3 and "Th1" not in titles
    assert corpus.web == ()
    assert question_corpus(pool[0], pool, passages=3, seed=5) == corpus  # deterministic
    assert question_corpus(pool[1], pool, passages=3, seed=5).digest() != corpus.digest()


def test_labelling_resumes_after_a_kill_without_repeating_a_question(tmp_path) -> None:
    questions = [question(f"q{i}") for i in range(3)]
    out = tmp_path / "labels.jsonl"
    with pytest.raises(KeyboardInterrupt):  # killed during the second question
        run_to_file(
            questions,
            FakeRunner({}, stop_after=4),
            out,
            config=config(tmp_path),
            ingest=fake_ingest,
        )
    assert [r["id"] for r in rows(out)] == ["q0"]
    runner = FakeRunner({"Question q2?": {"no-retrieval"}})
    assert run_to_file(questions, runner, out, config=config(tmp_path), ingest=fake_ingest) == 2
    assert [r["id"] for r in rows(out)] == ["q0", "q1", "q2"]
    assert rows(out)[2]["label"] == "A"
    assert {q for q, _, _ in runner.calls} == {"Question q1?", "Question q2?"}
    # Nothing left: the runner factory is not even called.
    assert run_to_file(questions, lambda: pytest.fail("built"), out, config=config(tmp_path)) == 0


def test_a_failed_question_is_skipped_and_retried_next_time(tmp_path) -> None:
    questions = [question("q0"), question("q1")]
    out = tmp_path / "labels.jsonl"
    broken = FakeRunner({}, fail_on={"Question q0?"})
    assert run_to_file(questions, broken, out, config=config(tmp_path), ingest=fake_ingest) == 1
    assert labelled_ids(out, reader="fake") == {"q1"}
    assert (
        run_to_file(questions, FakeRunner({}), out, config=config(tmp_path), ingest=fake_ingest)
        == 1
    )
    assert labelled_ids(out, reader="fake") == {"q0", "q1"}


def test_limit_labels_at_most_n_new_questions(tmp_path) -> None:
    questions = [question(f"q{i}") for i in range(4)]
    out = tmp_path / "labels.jsonl"
    for expected in (["q0", "q1"], ["q0", "q1", "q2", "q3"]):
        run_to_file(
            questions, FakeRunner({}), out, config=config(tmp_path), limit=2, ingest=fake_ingest
        )
        assert [r["id"] for r in rows(out)] == expected


def test_a_file_never_mixes_readers(tmp_path) -> None:
    out = tmp_path / "labels.jsonl"
    out.write_text(json.dumps({"id": "old", "correct": {}}) + "\n")  # the old runner's row
    with pytest.raises(UserError, match="other readers"):
        run_to_file([question("q0")], FakeRunner({}), out, config=config(tmp_path))
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "q0", "reader": "fake", "correct": {}}) + "\n")
    with pytest.raises(UserError, match="other readers"):
        labelled_ids(other, reader="ollama:qwen")
    assert labelled_ids(other, reader="fake") == {"q0"}


def test_a_dataset_index_holds_every_passage_of_the_dataset_once(tmp_path) -> None:
    pool = [question(f"q{i}") for i in range(3)] + [question("h1", dataset="hotpotqa")]
    pool.append(question("q0"))  # the same passages again
    corpus = dataset_corpus(pool[0], pool)
    assert sorted(p.title for p in corpus.local) == ["Tq0", "Tq1", "Tq2"] and corpus.web == ()
    built: list[str] = []

    def ingest(jsonl: Path, home: Path, collection: str) -> None:
        built.append(jsonl.read_text())

    out = tmp_path / "labels.jsonl"
    shared = LabelConfig("fake", tmp_path / "indexes", index_passages=0)
    runner = FakeRunner({})
    assert run_to_file(pool[:4], runner, out, config=shared, pool=pool, ingest=ingest) == 4
    assert len(built) == 2  # one index per dataset, built once
    assert len({home for _, _, home in runner.calls}) == 2
    assert {(r["index"], r["index_passages"]) for r in rows(out)} == {
        ("dataset", 3),
        ("dataset", 1),
    }
    with pytest.raises(UserError, match="per-dataset index, not a per-question one"):
        run_to_file(pool, runner, out, config=config(tmp_path), ingest=ingest)


def test_subset_is_seeded_and_balanced_per_dataset() -> None:
    pool = [question(f"n{i}") for i in range(5)] + [
        question(f"h{i}", dataset="hotpotqa") for i in range(2)
    ]
    subset = select_subset(pool, 3, seed=5)
    assert subset == select_subset(pool, 3, seed=5)
    assert sorted(q.dataset for q in subset) == ["hotpotqa"] * 2 + ["nq"] * 3
