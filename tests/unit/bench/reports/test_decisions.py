from bench.harness.records import append_record
from bench.reports.decisions import decisions, decisions_table, main
from tests.unit.bench.factories import record


def _run(gaps: dict[str, float], n: int, *, noise: float = 0.0) -> list:
    """`single` scores 0.5 on n questions; every other strategy adds its gap, +/- noise."""
    found = [record("single", q, score=0.5) for q in range(n)]
    for name, gap in gaps.items():
        for q in range(n):
            wobble = noise if q % 2 else -noise
            found.append(record(name, q, score=min(1.0, max(0.0, 0.5 + gap + wobble))))
    return found


def test_a_quick_run_that_keeps_the_sign_agrees_and_one_that_flips_it_does_not():
    record_run = _run({"no-retrieval": -0.3, "crag": 0.2}, 40)
    quick_run = _run({"no-retrieval": -0.2, "crag": -0.1}, 9)
    found = {(d.a, d.b): d for d in decisions(record_run, quick_run)}
    retrieval = found[("no-retrieval", "single")]
    assert retrieval.resolved and retrieval.agrees and retrieval.repeats
    crag = found[("single", "crag")]
    assert crag.resolved and not crag.agrees and not crag.repeats and crag.contradicts
    table = decisions_table(list(found.values()))
    assert "2 of 3 resolved comparisons agree" in table  # no-retrieval - crag agrees too
    assert "**no**" in table
    assert "1 decided the other way" in table


def test_a_quick_run_that_resolves_the_opposite_sign_contradicts_and_a_tie_is_shown():
    record_run = _run({"no-retrieval": -0.3, "crag": 0.2}, 40)
    quick_run = _run({"no-retrieval": 0.3, "crag": 0.0}, 9)
    found = {(d.a, d.b): d for d in decisions(record_run, quick_run)}
    assert found[("no-retrieval", "single")].contradicts
    tie = found[("single", "crag")]
    assert not tie.agrees and not tie.contradicts
    table = decisions_table(list(found.values()))
    assert "| tie |" in table
    assert "2 decided the other way" in table  # no-retrieval - crag flips too


def test_a_comparison_the_record_leaves_open_asks_nothing_of_the_quick_run():
    record_run = _run({"crag": 0.0}, 40, noise=0.3)
    quick_run = _run({"crag": 0.4}, 9)
    (only,) = decisions(record_run, quick_run)
    assert not only.resolved
    assert "0 of 0 resolved comparisons agree" in decisions_table([only])


def test_strategies_one_run_lacks_are_not_compared(tmp_path, capsys):
    record_run = _run({"crag": 0.2, "ircot": 0.1}, 10)
    quick_run = _run({"crag": 0.2}, 5)
    pairs = {(d.a, d.b) for d in decisions(record_run, quick_run)}
    assert pairs == {("single", "crag")}
    for name, run in (("record", record_run), ("quick", quick_run)):
        for one in run:
            append_record(tmp_path / name / "records.jsonl", one)
    assert main([str(tmp_path / "record"), str(tmp_path / "quick")]) == 0
    assert "single - crag" in capsys.readouterr().out
