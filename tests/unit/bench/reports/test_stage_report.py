import pytest

from bench.harness.stages import STAGES
from bench.reports.outputs import write_reports
from bench.reports.plots import plot_f1_vs_time, plot_time_stages, png_bytes
from bench.reports.report import markdown_report
from bench.reports.stage_report import (
    DECODE_RATE,
    PROMPT_RATE,
    at_reference_speed,
    model_time_runs,
    stage_rows,
    stage_table,
)
from tests.unit.bench.factories import record


def timed(strategy, *, qid="1", cold=True, hits=0, f1=1.0, **stages):
    every = {stage: 0.0 for stage in STAGES} | stages
    return record(
        strategy,
        qid,
        dataset="nq",
        score=f1,
        seconds=sum(every.values()),
        stages=every if stages else {},
        cold_start=cold,
        cache_hits=hits,
    )


RECORDS = [
    timed("single", qid="1", retrieval=1.0, prompt=2.0, decode=1.0),
    timed("single", qid="2", retrieval=3.0, prompt=4.0, decode=1.0),
    timed("single", qid="3", retrieval=9.0, hits=1),  # a cached LLM call: not model time
    timed("single", qid="4", cold=False, retrieval=50.0),  # warm: not when cold runs exist
    timed("crag", qid="1", retrieval=1.0, evaluator=0.5, strips=0.5, prompt=3.0, decode=1.0),
    timed("ircot", qid="1"),  # older record: no stages
]


def test_stage_rows_average_the_cold_uncached_timed_runs():
    rows = {row.strategy: row for row in stage_rows(RECORDS)}
    assert list(rows) == ["single", "crag"]  # the report's strategy order; ircot is untimed
    assert rows["single"].runs == 2
    assert rows["single"].stages["retrieval"] == 2.0
    assert rows["single"].stages["prompt"] == 3.0
    assert rows["single"].seconds == 6.0
    assert rows["crag"].stages["evaluator"] == 0.5


def run_at(qid, *, prompt, decode, retrieval=0.0, tokens=(750, 22)):
    """A single-step run that evaluated `tokens` in `prompt` and `decode` seconds."""
    return record(
        "single",
        qid,
        score=1.0,
        seconds=prompt + decode + retrieval,
        stages={"retrieval": retrieval, "prompt": prompt, "decode": decode},
        prompt_tokens=tokens[0],
        generated_tokens=tokens[1],
        cold_start=True,
    )


def test_a_run_on_a_slower_machine_counts_at_the_reference_speed():
    assert (PROMPT_RATE, DECODE_RATE) == (75.0, 22.0)
    idle = run_at("i", prompt=10.0, decode=1.0, retrieval=1.0)  # 75 and 22 tok/s
    loaded = run_at("l", prompt=30.0, decode=2.0, retrieval=3.0)  # 3x slower prompt
    assert at_reference_speed(idle).stages == pytest.approx(idle.stages)
    slowed = at_reference_speed(loaded)
    assert slowed.stages == pytest.approx({"retrieval": 1.0, "prompt": 10.0, "decode": 1.0})
    assert slowed.seconds == pytest.approx(12.0)
    assert loaded.seconds == 35.0  # the record itself is left as measured
    assert [r.seconds for r in model_time_runs([idle, loaded])] == pytest.approx([12.0, 12.0])
    assert stage_rows([idle, loaded])[0].seconds == pytest.approx(12.0)


def test_a_run_with_no_prompt_evaluation_keeps_its_measured_seconds():
    no_llm = record(
        "single", "n", score=1.0, seconds=0.5, stages={"retrieval": 0.5}, cold_start=True
    )
    assert at_reference_speed(no_llm) is no_llm
    no_decode = run_at("d", prompt=20.0, decode=0.0, tokens=(750, 0))  # 2x slower prompt
    assert at_reference_speed(no_decode).stages == pytest.approx(
        {"retrieval": 0.0, "prompt": 10.0, "decode": 0.0}
    )


def test_without_cold_runs_the_warm_ones_count():
    warm = [timed("single", cold=False, retrieval=2.0), timed("single", qid="2", cold=False)]
    assert stage_rows(warm)[0].runs == 1  # the other has no stages
    assert "warm prompt cache" in stage_table(warm)


def test_stage_table_says_what_it_rests_on():
    table = stage_table(RECORDS)
    assert "Mean over 3 runs (every LLM call started cold" in table
    assert f"| strategy | runs | {' | '.join(STAGES)} | total |" in table
    single = "| single | 2 | 0.00 | 2.00 | 0.00 | 0.00 | 0.00 | 3.00 | 1.00 | 0.00 | 6.00 |"
    assert single in table
    assert stage_table([timed("single")]) == ""  # nothing timed: no table


def test_markdown_report_has_the_stages_and_the_cold_start_count():
    text = markdown_report(RECORDS)
    assert "## Where the time goes" in text
    assert "Cold-start runs (no LLM call reused the previous prompt's KV cache): 5 of 6." in text


def test_f1_against_time_uses_only_cold_runs_when_there_are_any():
    records = [
        timed("single", f1=0.0, retrieval=2.0),
        timed("single", qid="2", cold=False, retrieval=20.0),
        timed("crag", cold=False, retrieval=30.0),
    ]
    by_time = plot_f1_vs_time(records).axes[0]
    # crag was warm only; single's F1 is over both questions, its time over the cold one
    assert [tuple(c.get_offsets()[0]) for c in by_time.collections] == [(2.0, 50.0)]
    by_tokens = plot_f1_vs_time(records, cost="tokens").axes[0]
    assert len(by_tokens.collections) == 2  # tokens do not depend on the prompt cache


def test_time_stages_plot_stacks_every_stage_per_strategy():
    axes = plot_time_stages(RECORDS).axes[0]
    assert [t.get_text() for t in axes.get_yticklabels()] == ["single", "crag"]
    bars = axes.patches
    assert len(bars) == 2 * len(STAGES)
    ends = {}
    for bar in bars:
        y = round(bar.get_y() + bar.get_height() / 2)
        ends[y] = max(ends.get(y, 0.0), bar.get_x() + bar.get_width())
    assert sorted(ends.values()) == pytest.approx([6.0, 6.0])  # each bar ends at its total
    assert [t.get_text() for t in axes.get_legend().get_texts()] == list(STAGES)
    assert png_bytes(plot_time_stages([]))[:4] == b"\x89PNG"  # nothing timed: still a picture


def test_reports_write_the_time_stages_picture_beside_f1_vs_time(tmp_path):
    names = {path.name for path in write_reports(RECORDS, tmp_path)}
    assert {"f1_vs_time.png", "time_stages.png"} <= names
    assert (tmp_path / "time_stages.png").read_bytes()[:4] == b"\x89PNG"
