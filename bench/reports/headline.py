"""The README's headline: benchmark runs side by side, each strategy against single-step.

python -m bench.reports.headline docs/bench/full-dev docs/bench/full-usrdoc

One row per strategy. For each results folder: F1 (the average over its datasets, or its one
dataset) and the difference from single-step on the same questions, with its paired bootstrap
95% interval (`*` when it excludes zero). Then the costs per question on the first folder:
LLM calls, tokens and seconds (cold-start runs when there are any, at the reference machine
speed of `bench.reports.stage_report`).

`--common` keeps only the questions every strategy of a folder has answered: while a resumable
run is under way, its strategies have reached different questions, and their F1 would not be
on the same footing.
"""

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.harness.records import Record
from bench.harness.strategies import ORACLE, ordered_strategies
from bench.reports.outputs import load_results
from bench.reports.report import AVERAGE, Summary, summarize
from bench.reports.versus import difference

__all__ = ["common_questions", "headline_table", "main"]


def _overall(records: Sequence[Record]) -> dict[str, Summary]:
    """Return each strategy's summary over the run: its average, or its only dataset's."""
    rows = summarize(records)
    datasets = {r.dataset for r in rows} - {AVERAGE}
    wanted = next(iter(datasets)) if len(datasets) == 1 else AVERAGE
    return {r.strategy: r for r in rows if r.dataset == wanted}


def common_questions(records: Sequence[Record]) -> list[Record]:
    """Return the records of the questions that every strategy in `records` ran."""
    asked: dict[tuple[str, str, float], set[str]] = {}
    for r in records:
        asked.setdefault((r.dataset, r.id, r.drop_gold), set()).add(r.strategy)
    strategies = {r.strategy for r in records}
    return [r for r in records if asked[r.dataset, r.id, r.drop_gold] == strategies]


def headline_table(runs: Mapping[str, Sequence[Record]]) -> str:
    """Return the Markdown headline of named runs (the first one also gives the costs)."""
    overall = {name: _overall(records) for name, records in runs.items()}
    first = next(iter(overall.values()), {})
    strategies = ordered_strategies(s for summary in overall.values() for s in summary)
    head = "| strategy | " + " | ".join(f"{n} F1 | vs single" for n in runs)
    head += " | LLM calls | tokens | s/question |"
    lines = [head, "|---|" + "---:|---|" * len(runs) + "---:|---:|---:|"]
    for strategy in strategies:
        cells = []
        for name, records in runs.items():
            summary = overall[name].get(strategy)
            versus = None
            if summary and strategy != "single":
                versus = difference([r for r in records if r.drop_gold == 0], strategy)
            cells += [f"{100 * summary.f1:.1f}" if summary else "-", str(versus or "")]
        cost = first.get(strategy)
        if cost is None or strategy == ORACLE:
            cells += ["-", "-", "-"]
        else:
            cells += [f"{cost.llm_calls:.2f}", f"{cost.tokens:.0f}", f"{cost.seconds:.1f}"]
        lines.append(f"| {strategy} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the headline table of the given results folders."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="+", help="results folders of acrag eval")
    parser.add_argument("--names", help="comma-separated column names (default: folder names)")
    parser.add_argument(
        "--common", action="store_true", help="only questions that every strategy has answered"
    )
    args = parser.parse_args(argv)
    names = args.names.split(",") if args.names else [f.name for f in args.folders]
    if len(names) != len(args.folders):
        parser.error("give one name per folder")
    runs = {name: load_results(folder) for name, folder in zip(names, args.folders, strict=True)}
    if args.common:
        runs = {name: common_questions(records) for name, records in runs.items()}
    print(headline_table(runs))  # noqa: T201 - CLI output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
