"""Write a run's reports into its output folder, and load committed results back."""

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from bench.harness.evaluate import ORACLE_FILE, RECORDS_FILE
from bench.harness.records import Record, read_records
from bench.reports.report import markdown_report, summarize
from bench.reports.stage_report import stage_rows

__all__ = ["REPORT_FILE", "load_results", "write_pictures", "write_reports"]

logger = logging.getLogger(__name__)

REPORT_FILE = "results.md"
SUMMARY_FILE = "summary.json"
F1_PLOT = "f1_vs_time.png"
F1_TOKENS_PLOT = "f1_vs_tokens.png"
TIME_STAGES_PLOT = "time_stages.png"
ROBUSTNESS_PLOT = "robustness.png"
ROBUSTNESS_F1_PLOT = "robustness_f1.png"


def write_reports(
    records: Sequence[Record], out: Path, *, command: str = "", title: str = "Benchmark results"
) -> list[Path]:
    """Write the Markdown report, the summary JSON and the pictures; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    text = markdown_report(records, title=title)
    if command:
        text = text.replace("\n", f"\n\nCommand:\n\n```\n{command}\n```\n", 1)
    written = [out / REPORT_FILE, out / SUMMARY_FILE]
    written[0].write_text(text, encoding="utf-8")
    shares = sorted({r.drop_gold for r in records})
    summaries = {
        f"{share:g}": [asdict(s) for s in summarize(records, drop_gold=share)] for share in shares
    }
    written[1].write_text(json.dumps(summaries, indent=1), encoding="utf-8")
    return written + write_pictures(records, out)


def write_pictures(records: Sequence[Record], out: Path) -> list[Path]:
    """Write the PNG pictures; skip them with a warning when matplotlib is not installed."""
    try:
        from bench.reports.plots import plot_f1_vs_time, plot_robustness, plot_time_stages, save
    except ImportError as error:  # matplotlib comes with the `dev` extra only
        logger.warning("no pictures: %s (pip install matplotlib)", error)
        return []
    written = []
    if any(r.drop_gold == 0 for r in records):
        written.append(save(plot_f1_vs_time(records), out / F1_PLOT))
        written.append(save(plot_f1_vs_time(records, cost="tokens"), out / F1_TOKENS_PLOT))
    if stage_rows(records):  # older records are not timed per stage
        written.append(save(plot_time_stages(records), out / TIME_STAGES_PLOT))
    if len({r.drop_gold for r in records}) > 1:
        written.append(save(plot_robustness(records), out / ROBUSTNESS_PLOT))
        written.append(save(plot_robustness(records, metric="f1"), out / ROBUSTNESS_F1_PLOT))
    return written


def load_results(folder: Path) -> list[Record]:
    """Load the current records of a results folder (its runs and the derived oracle).

    A strategy rerun under a new signature (a retrained judge, say) leaves its older records
    in the file; per (strategy, drop share) only those under its latest signature count.
    """
    records = list(read_records(folder / RECORDS_FILE).values())
    latest = {(r.strategy, round(r.drop_gold, 4)): r.signature for r in records}
    current = [r for r in records if r.signature == latest[r.strategy, round(r.drop_gold, 4)]]
    return current + list(read_records(folder / ORACLE_FILE).values())
