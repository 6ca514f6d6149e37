"""The one oracle rule (`oracle_route`) and the benchmark oracle built on it."""

import pytest

from bench.harness.oracle import ROUTES, oracle_choice, oracle_records, oracle_route, route_of
from tests.unit.bench.factories import record


def rec(strategy, *, acc, f1=0.0, qid="1", error=None):
    return record(
        strategy,
        qid,
        prediction=strategy,
        em=acc,
        f1=f1 or acc,
        acc=acc,
        error=error,
        seconds={"no-retrieval": 1, "single": 2, "ircot": 9}.get(strategy, 5),
    )


def test_simplest_correct_strategy_wins():
    pick = oracle_choice([rec("ircot", acc=1), rec("single", acc=1), rec("no-retrieval", acc=0)])
    assert pick is not None and pick.strategy == "single"


def test_only_multi_step_correct():
    pick = oracle_choice([rec("no-retrieval", acc=0), rec("single", acc=0), rec("ircot", acc=1)])
    assert pick is not None and pick.strategy == "ircot"


def test_none_correct_takes_best_f1_then_simplest():
    pick = oracle_choice(
        [
            rec("no-retrieval", acc=0, f1=0.2),
            rec("single", acc=0, f1=0.5),
            rec("ircot", acc=0, f1=0.5),
        ]
    )
    assert pick is not None and pick.strategy == "single"


def test_oracle_ignores_other_strategies_and_errors():
    assert oracle_choice([rec("crag", acc=1), rec("adaptive", acc=1)]) is None
    pick = oracle_choice([rec("no-retrieval", acc=1, error="boom"), rec("ircot", acc=1)])
    assert pick is not None and pick.strategy == "ircot"


def test_oracle_records_copy_the_chosen_costs():
    records = [
        rec("no-retrieval", acc=0),
        rec("single", acc=1),
        rec("no-retrieval", acc=1, qid="2"),
        rec("single", acc=1, qid="2"),
    ]
    oracle = {r.id: r for r in oracle_records(records)}
    assert oracle["1"].strategy == "adaptive-oracle"
    assert (oracle["1"].oracle_of, oracle["1"].seconds) == ("single", 2)
    assert (oracle["2"].oracle_of, oracle["2"].seconds) == ("no-retrieval", 1)


@pytest.mark.parametrize(
    ("correct", "expected"),
    [
        ({"A": True, "B": True, "C": True}, "A"),
        ({"A": False, "B": True, "C": True}, "B"),
        ({"A": True, "B": False, "C": True}, "A"),
        ({"A": False, "B": False, "C": True}, "C"),
        ({"C": True}, "C"),  # a route never run counts as wrong
        ({"A": False, "B": False, "C": False}, "otherwise"),
        ({}, "otherwise"),
    ],
)
def test_the_rule_is_the_simplest_correct_route_else_the_fallback(correct, expected) -> None:
    for fallback in ROUTES:
        want = fallback if expected == "otherwise" else expected
        assert oracle_route(correct, otherwise=fallback) == want


def test_routes_follow_the_oracle_ladder() -> None:
    assert ROUTES == ("A", "B", "C")
    assert [route_of(s) for s in ("no-retrieval", "single", "ircot")] == list(ROUTES)
    with pytest.raises(ValueError, match="crag"):
        route_of("crag")


def test_silver_labels_and_the_benchmark_oracle_share_the_rule() -> None:
    from training.labels import question_label

    results = [rec("no-retrieval", acc=0), rec("single", acc=1), rec("ircot", acc=1)]
    pick = oracle_choice(results)
    label, source = question_label({"A": False, "B": True, "C": True}, "multi")
    assert pick is not None and route_of(pick.strategy) == label == "B"
    assert source == "silver"
    # When no route is right, labels fall back to the dataset bias (multi-hop: C).
    assert question_label({"A": False, "B": False, "C": False}, "multi") == ("C", "bias")
    assert question_label({}, "single") == ("B", "bias")
