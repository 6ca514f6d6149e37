from bench.reports.outputs import load_results, write_reports
from bench.reports.report import (
    abstention_table,
    crag_mix,
    markdown_report,
    robustness_table,
    route_mix,
    summarize,
    summary_table,
)
from tests.unit.bench.factories import record


def rec(dataset, strategy, *, f1, seconds, route="B", drop=0.0, qid="1"):
    return record(
        strategy,
        qid,
        dataset=dataset,
        score=f1,
        route=route,
        seconds=seconds,
        retrieval_calls=1,
        llm_calls=2,
        prompt_tokens=100,
        generated_tokens=5,
        drop_gold=drop,
    )


RECORDS = [
    rec("nq", "single", f1=1.0, seconds=2.0),
    rec("nq", "single", f1=0.0, seconds=4.0, qid="2"),
    rec("nq", "ircot", f1=1.0, seconds=12.0, route="C"),
    rec("hotpotqa", "single", f1=0.5, seconds=2.0),
    rec("hotpotqa", "adaptive", f1=1.0, seconds=5.0, route="C"),
]


def test_summaries_per_dataset_and_average():
    rows = {(r.dataset, r.strategy): r for r in summarize(RECORDS)}
    assert rows[("nq", "single")].f1 == 0.5
    assert rows[("nq", "single")].seconds == 3.0
    assert rows[("average", "single")].f1 == 0.5  # datasets weigh the same: (0.5 + 0.5) / 2
    assert ("average", "ircot") not in rows  # not run on every dataset


def test_seconds_come_from_cold_uncached_runs_when_there_are_any():
    from dataclasses import replace

    warm = rec("nq", "single", f1=1.0, seconds=1.0)
    cold = replace(rec("nq", "single", f1=0.0, seconds=5.0, qid="2"), cold_start=True)
    cached = replace(rec("nq", "single", f1=1.0, seconds=0.1, qid="3"), cache_hits=1)
    rows = {(r.dataset, r.strategy): r for r in summarize([warm, cold, cached])}
    assert rows[("nq", "single")].seconds == 5.0
    assert rows[("nq", "single")].f1 == 2 / 3  # scores still count every run


def test_table_has_table1_shape():
    table = summary_table(summarize(RECORDS), "nq")
    lines = table.splitlines()
    assert lines[0].startswith("| strategy | n | EM | F1 | Acc | steps |")
    assert lines[2] == "| single | 2 | 50.0 | 50.0 | 50.0 | 1.00 | 2.00 | 105 | 3.00 | 1.00x |"
    assert lines[3].startswith("| ircot | 1 | 100.0 |") and lines[3].endswith("| 4.00x |")


def test_route_mix_and_robustness():
    mix = route_mix(RECORDS)
    assert "| hotpotqa | adaptive | 0% | 0% | 100% |" in mix
    dropped = [
        rec("nq", "crag", f1=1.0, seconds=1, drop=0.0),
        rec("nq", "crag", f1=0.0, seconds=1, drop=0.5),
    ]
    table = robustness_table(dropped)
    assert "| crag | 100.0 (F1 100.0, n=1) | 0.0 (F1 0.0, n=1) |" in table
    dropped[0].crag_action, dropped[1].crag_action = "Correct", "Incorrect"
    mix = crag_mix(dropped)
    assert "| nq | crag | 100% | 0% | 0% |" in mix
    assert "| nq | crag (drop 50%) | 0% | 0% | 100% |" in mix
    assert robustness_table(RECORDS) == ""


def test_markdown_report_and_files(tmp_path):
    text = markdown_report(RECORDS)
    assert text.index("## hotpotqa") < text.index("## nq") < text.index("## average")
    paths = write_reports(RECORDS, tmp_path, command="acrag eval --data x")
    names = {p.name for p in paths}
    assert names == {"results.md", "summary.json", "f1_vs_time.png", "f1_vs_tokens.png"}
    assert (tmp_path / "f1_vs_time.png").read_bytes()[:4] == b"\x89PNG"
    assert "acrag eval --data x" in (tmp_path / "results.md").read_text()
    assert load_results(tmp_path) == []


def test_a_folder_reports_each_strategy_under_its_latest_signature(tmp_path):
    from dataclasses import replace

    from bench.harness.records import append_record

    old = replace(rec("nq", "adaptive", f1=0.0, seconds=1), signature="old")
    single = replace(rec("nq", "single", f1=1.0, seconds=1), signature="plain")
    new = replace(rec("nq", "adaptive", f1=1.0, seconds=1, qid="2"), signature="new")
    for run in (old, single, new, replace(single, f1=0.5)):
        append_record(tmp_path / "records.jsonl", run)
    loaded = load_results(tmp_path)
    assert [(r.strategy, r.signature, r.f1) for r in loaded] == [
        ("adaptive", "new", 1.0),
        ("single", "plain", 0.5),
    ]


def test_robustness_pictures_with_several_shares(tmp_path):
    records = [
        rec("nq", s, f1=f, seconds=1, drop=d)
        for s, f, d in [
            ("single", 1.0, 0.0),
            ("single", 0.0, 0.5),
            ("crag", 1.0, 0.0),
            ("crag", 1.0, 0.5),
        ]
    ]
    names = {p.name for p in write_reports(records, tmp_path)}
    assert {"robustness.png", "robustness_f1.png"} <= names
    assert "| single | 100.0 (F1 100.0, n=1) | 0.0 (F1 0.0, n=1) |" in (
        (tmp_path / "results.md").read_text()
    )


def abstaining(strategy, qid, *, answers, acc, abstained):
    record = rec("usrdoc", strategy, f1=acc, seconds=1.0, qid=qid)
    record.answers = answers
    if abstained:  # the field the runner adds; read through getattr until it exists
        object.__setattr__(record, "abstained", True)
    return record


ABSTAINING = [
    abstaining("single", "1", answers=["a"], acc=1.0, abstained=False),
    abstaining("single", "2", answers=["a"], acc=0.0, abstained=True),
    abstaining("single", "3", answers=[], acc=0.0, abstained=True),
    abstaining("single", "4", answers=[], acc=0.0, abstained=False),
    abstaining("crag", "1", answers=["a"], acc=1.0, abstained=False),
    abstaining("crag", "3", answers=[], acc=0.0, abstained=True),
]


def test_scores_are_over_answerable_questions_only():
    rows = {(r.dataset, r.strategy): r for r in summarize(ABSTAINING)}
    single = rows[("usrdoc", "single")]
    assert single.n == 4 and single.acc == 0.5 and single.em == 0.5
    assert rows[("usrdoc", "crag")].acc == 1.0


def test_abstention_table_per_strategy():
    table = abstention_table(ABSTAINING)
    assert "| usrdoc | single | 2 | 50.0 | 2 | 50.0 | 50.0 |" in table
    assert "| usrdoc | crag | 1 | 100.0 | 1 | 0.0 | 100.0 |" in table
    assert abstention_table(RECORDS) == ""  # no unanswerable questions: no table
    assert "## Abstention" in markdown_report(ABSTAINING)
