import json
from pathlib import Path

from bench.harness.records import Record
from bench.suites.answer_evidence import cache_key, join, kept, run_name, usable


def _record(**extra: object) -> Record:
    fields = {
        "prediction": "Ann",
        "route": "B",
        "crag_action": "Correct",
        "dataset": "tiny",
        "id": "q1",
        "strategy": "crag",
        "question": "Who wrote it?",
        "answers": ["Ann"],
        "em": 1.0,
        "f1": 1.0,
        "acc": 1.0,
        "model": "reader",
    }
    return Record.from_dict({**fields, **extra})


def test_only_answers_read_from_the_first_local_retrieval_are_usable() -> None:
    assert usable(_record(), ["reader"])
    assert usable(_record(strategy="single", route=None, crag_action=None), ["reader"])
    assert not usable(_record(crag_action="Incorrect"), ["reader"])  # read the web instead
    assert not usable(_record(route="C"), ["reader"])
    assert not usable(_record(abstained=True), ["reader"])
    assert not usable(_record(prediction=" "), ["reader"])
    assert not usable(_record(), ["another reader"])


def test_kept_strips_follow_refinement_threshold_top_k_and_repeats() -> None:
    line = {
        "strips": [["a b", 0.1], ["A  b", 0.05], ["c", 0.9], ["d", -0.8], ["e", 0.3]],
        "strip_threshold": -0.5,
        "strips_top_k": 3,
    }
    assert kept(line) == [("c", 0.9), ("e", 0.3), ("a b", 0.1)]


def test_rows_join_their_runs_evidence_by_strip_mode(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    contexts = {"single": {"strip_mode": "passage"}, "crag": {"strip_mode": "sentences"}}
    (folder / "run.json").write_text(json.dumps({"contexts": contexts}))
    records = folder / "records.jsonl"
    question = "Who wrote it?"
    strips = [["Ann wrote it in 1990.", 0.7], ["Bob read it.", 0.2]]
    line = {"strips": strips, "strip_threshold": -1.0, "strips_top_k": 5}
    cache = {cache_key(run_name(records), question, 0.0, "sentences"): line}
    rows = [
        {"question": question, "prediction": "Ann", "strategy": s, "records_file": str(records)}
        for s in ("crag", "single")
    ]
    found, table = join(rows, cache)
    assert [r["strategy"] for r in found] == ["crag"]  # single read whole passages: not cached
    assert table[0]["answer_grade"] == 0.7 and table[0]["logprob_missing"] == 1.0
