from bench.reports.targets import check_targets, targets_table
from tests.unit.bench.factories import record


def rec(strategy, qid, score, *, drop=0.0, calls=1, tokens=100):
    return record(strategy, qid, score=score, llm_calls=calls, prompt_tokens=tokens, drop_gold=drop)


def run(strategy, rights, n=20, **kwargs):
    """`rights` of `n` questions answered right (the first ones)."""
    return [rec(strategy, i, float(i < rights), **kwargs) for i in range(n)]


def test_every_goal_is_checked_from_one_run():
    records = [
        *run("single", 8),
        *run("ircot", 10, tokens=400),
        *run("adaptive", 10, tokens=150),
        *run("adaptive-oracle", 12),
        *run("acrag", 16, calls=3),
        *run("tutorial-crag", 8, calls=5),
        *run("tutorial-self-rag", 15, calls=6),
        *run("crag", 10),
        *run("crag", 9, drop=0.5),
        *run("single", 4, drop=0.5),
    ]
    found = check_targets(records)
    assert [t.met for t in found] == [True, False, True, True, True]
    assert found[0].measured.startswith("single +40.0 [")
    assert "tutorial-self-rag +5.0 [" in found[1].measured  # one question: inside the noise
    assert found[1].measured.endswith("LLM calls 3.00 vs 6.00")
    assert found[2].measured == "F1 50.0 vs 50.0; tokens 38%"
    assert found[3].measured == "50% closed"
    assert found[4].measured == "CRAG 90% kept, single 50%"
    table = targets_table(records)
    assert "| adaptive closes >= 30% of the single-to-oracle Acc gap | 50% closed | met |" in table


def test_crag_must_degrade_less_than_single():
    records = [*run("crag", 10), *run("crag", 9, drop=0.5)]
    records += [*run("single", 10), *run("single", 10, drop=0.5)]
    (robust,) = check_targets(records)
    assert robust.measured == "CRAG 90% kept, single 100%"
    assert robust.met is False


def test_no_targets_without_the_strategies():
    assert targets_table(run("single", 1)) == ""
