from bench.harness.records import Record
from bench.suites.crag_sweep import breakdown, chosen_records, frontier, sweep


def record(qid: str, strategy: str, *, acc: float, tokens: int, best: float) -> Record:
    return Record(
        dataset="d",
        id=qid,
        strategy=strategy,
        question="q",
        answers=["a"],
        prediction="a" if acc else "b",
        em=acc,
        f1=acc,
        acc=acc,
        prompt_tokens=tokens,
        best_score=best,
    )


def forced(qid: str, best: float, correct: float, incorrect: float, ambiguous: float) -> list:
    return [
        record(qid, "crag-correct", acc=correct, tokens=100, best=best),
        record(qid, "crag-incorrect", acc=incorrect, tokens=300, best=best),
        record(qid, "crag-ambiguous", acc=ambiguous, tokens=400, best=best),
    ]


RECORDS = [
    *forced("good", 0.9, correct=1.0, incorrect=0.0, ambiguous=1.0),  # local evidence holds it
    *forced("bad", -0.8, correct=0.0, incorrect=1.0, ambiguous=1.0),  # only the web holds it
]


def test_a_pair_of_thresholds_replays_each_questions_action():
    point = next(p for p in sweep(RECORDS) if (p.upper, p.lower) == (0.5, -0.5))
    assert point.acc == 100.0  # good goes Correct (local), bad goes Incorrect (web)
    assert point.tokens == 200 and point.correct == 0.5 and point.incorrect == 0.5


def test_thresholds_that_send_everything_to_the_web_cost_more_and_lose_the_local_answer():
    point = next(p for p in sweep(RECORDS) if (p.upper, p.lower) == (0.97, 0.97))
    assert point.acc == 50.0 and point.incorrect == 1.0


def test_frontier_keeps_only_points_that_buy_accuracy_with_tokens():
    best = frontier(sweep(RECORDS))
    assert [p.acc for p in best] == sorted(p.acc for p in best)
    assert best[-1].acc == 100.0 and best[-1].tokens == 200


def test_questions_missing_an_action_are_left_out():
    assert sweep(RECORDS[:2]) == []
    assert sweep(RECORDS[:-1]) == sweep(RECORDS[:3])  # only "good" is complete


def test_breakdown_compares_the_chosen_actions_with_plain_single_on_the_same_questions():
    singles = [
        record("good", "single", acc=1.0, tokens=150, best=0.9),
        record("bad", "single", acc=0.0, tokens=150, best=-0.8),
    ]
    table = breakdown([*RECORDS, *singles], 0.5, -0.5)
    row = next(line for line in table.splitlines() if line.startswith("| all "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:5] == ["2", "50%", "50%", "0%"]
    assert cells[8:10] == ["100.0", "50.0"]  # CRAG answers both; single only the local one
    assert cells[10].startswith("+50.0")


def test_chosen_records_pick_the_web_when_every_passage_scores_low():
    picked = {r.id: r.strategy for r in chosen_records(RECORDS, 0.95, 0.95)}
    assert picked == {"good": "crag-incorrect", "bad": "crag-incorrect"}


def test_write_decision_names_the_weights_and_the_sweep_point(tmp_path):
    import json

    from bench.suites.crag_sweep import write_decision
    from models.evaluator import Thresholds, load_thresholds

    manifest = {"thresholds": {"upper": 0.97, "lower": 0.0, "strip_filter": -0.9}}
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "weights_sha256": "w1"}))
    path = write_decision(RECORDS, 0.5, -0.5, source=tmp_path / "records.jsonl", artifact=tmp_path)
    written = json.loads(path.read_text())
    assert written["weights_sha256"] == "w1" and written["sweep_point"]["acc"] == 100.0
    assert load_thresholds(tmp_path) == Thresholds(0.5, -0.5, -0.9)
