"""Choose CRAG's thresholds by answer accuracy: a sweep over one run's forced-action records.

Run `acrag eval` with the strategies `crag-correct`, `crag-incorrect` and `crag-ambiguous`:
each question is answered under every action's evidence (refined local strips, web results,
both), and each record keeps the evaluator's best score on the retrieval. CRAG's action
depends only on that score (Correct if it reaches `upper`, Incorrect if it is below `lower`),
so any pair of thresholds can be replayed offline: per pair, the action mix, Acc and tokens.
With `--upper` and `--lower`, it also breaks that pair down per dataset, beside plain `single`
when the run has it (a paired bootstrap interval of CRAG minus single on the same questions).
With `--rescore`, every question's retrieval is rebuilt and graded again with today's evaluator
and grading (`bench.harness.rescore`, no LLM) before the sweep, so thresholds can be chosen for
them.

    python -m bench.suites.crag_sweep docs/bench/crag-sweep/records.jsonl --upper 0.5 --lower -0.9
    python -m bench.suites.crag_sweep docs/bench/crag-sweep/records.jsonl --rescore
        --home "$ACRAG_HOME"
"""

import argparse
import itertools
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.harness.paired import paired_difference
from bench.harness.paths import portable_path
from bench.harness.records import Record, read_records
from models.errors import UserError

__all__ = ["Point", "breakdown", "chosen_records", "main", "sweep", "write_decision"]

_FORCED = {"Correct": "crag-correct", "Incorrect": "crag-incorrect", "Ambiguous": "crag-ambiguous"}
_GRID = (-0.9, -0.7, -0.5, -0.3, -0.13, 0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97)


@dataclass(frozen=True)
class Point:
    """The outcome of one pair of thresholds over the questions."""

    upper: float
    lower: float
    acc: float
    tokens: float
    correct: float
    """Share of questions that go Correct."""
    incorrect: float


def _by_question(records: Sequence[Record]) -> dict[tuple[str, str], dict[str, Record]]:
    grouped: dict[tuple[str, str], dict[str, Record]] = defaultdict(dict)
    for record in records:
        if record.error is None and record.strategy in _FORCED.values():
            grouped[record.dataset, record.id][record.strategy] = record
    return {k: v for k, v in grouped.items() if len(v) == len(_FORCED)}


def _action(score: float | None, upper: float, lower: float) -> str:
    if score is not None and score >= upper:
        return "Correct"
    return "Incorrect" if score is None or score < lower else "Ambiguous"


def sweep(records: Sequence[Record]) -> list[Point]:
    """Return every threshold pair on the grid (lower <= upper) with its Acc and cost."""
    questions = list(_by_question(records).values())
    points = []
    for upper, lower in itertools.product(_GRID, _GRID):
        if lower > upper or not questions:
            continue
        chosen = []
        for forced in questions:
            score = forced["crag-correct"].best_score
            chosen.append(forced[_FORCED[_action(score, upper, lower)]])
        count = len(chosen)
        points.append(
            Point(
                upper=upper,
                lower=lower,
                acc=100 * sum(r.acc for r in chosen) / count,
                tokens=sum(r.prompt_tokens + r.generated_tokens for r in chosen) / count,
                correct=sum(r.strategy == "crag-correct" for r in chosen) / count,
                incorrect=sum(r.strategy == "crag-incorrect" for r in chosen) / count,
            )
        )
    return points


def chosen_records(records: Sequence[Record], upper: float, lower: float) -> list[Record]:
    """Return, per question, the forced-action record that thresholds `upper`/`lower` pick."""
    return [
        forced[_FORCED[_action(forced["crag-correct"].best_score, upper, lower)]]
        for forced in _by_question(records).values()
    ]


def breakdown(records: Sequence[Record], upper: float, lower: float) -> str:
    """Return a Markdown table per dataset: action mix, Acc of each action, CRAG vs single."""
    chosen = chosen_records(records, upper, lower)
    singles = [r for r in records if r.strategy == "single" and r.error is None]
    rows = [
        "| dataset | n | Correct | Incorrect | Ambiguous | Acc if Correct | Acc if Incorrect "
        "| Acc if Ambiguous | CRAG Acc | single Acc | CRAG - single |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    datasets = sorted({r.dataset for r in chosen})
    for dataset in [*datasets, "all"]:
        mine = [r for r in chosen if dataset in ("all", r.dataset)]
        keys = {(r.dataset, r.id) for r in mine}
        forced = [r for r in records if (r.dataset, r.id) in keys and r.error is None]
        plain = [r for r in singles if (r.dataset, r.id) in keys]
        mix = {a: sum(r.strategy == s for r in mine) / len(mine) for a, s in _FORCED.items()}
        acc = {a: _mean_acc([r for r in forced if r.strategy == s]) for a, s in _FORCED.items()}
        versus = "–"
        if plain:
            diff = paired_difference(mine, plain, metric="acc")
            versus = f"{diff.mean:+.1f} [{diff.low:+.1f}, {diff.high:+.1f}]"
        rows.append(
            f"| {dataset} | {len(mine)} | {mix['Correct']:.0%} | {mix['Incorrect']:.0%} "
            f"| {mix['Ambiguous']:.0%} | {acc['Correct']:.1f} | {acc['Incorrect']:.1f} "
            f"| {acc['Ambiguous']:.1f} | {_mean_acc(mine):.1f} "
            f"| {_mean_acc(plain) if plain else float('nan'):.1f} | {versus} |"
        )
    return "\n".join(rows)


def _mean_acc(records: Sequence[Record]) -> float:
    return 100 * sum(r.acc for r in records) / len(records) if records else float("nan")


def frontier(points: Sequence[Point]) -> list[Point]:
    """Return the points no other point beats on both Acc and tokens, cheapest first."""
    best: list[Point] = []
    for point in sorted(points, key=lambda p: (p.tokens, -p.acc)):
        if not best or point.acc > best[-1].acc:
            best.append(point)
    return best


def table(points: Sequence[Point]) -> str:
    """Return a Markdown table of threshold pairs."""
    rows = [
        "| upper | lower | Acc | tokens | Correct | Incorrect |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    rows += [
        f"| {p.upper:+.2f} | {p.lower:+.2f} | {p.acc:.1f} | {p.tokens:.0f} | "
        f"{p.correct:.0%} | {p.incorrect:.0%} |"
        for p in points
    ]
    return "\n".join(rows)


def _rescored(path: Path, records: list[Record], *, home: str | None) -> list[Record]:
    """Return the records with today's best scores, after printing what changed."""
    from bench.harness.replay import Replay
    from bench.harness.rescore import grading_context, rescore, summary
    from graphs.context import Context
    from graphs.deps import make_evaluator
    from stores.home import acrag_home

    replay = Replay(path, index_root=acrag_home(home) / "bench" / "indexes")
    context = grading_context(replay, "crag-correct")
    rescored, questions = rescore(records, replay, make_evaluator(context))
    thresholds = Context(evaluator=context.evaluator).crag_thresholds()
    print(summary(questions, upper=thresholds.upper, lower=thresholds.lower) + "\n")  # noqa: T201
    return rescored


def main(argv: Sequence[str] | None = None) -> int:
    """Print the frontier of threshold pairs for a records file, per dataset and overall."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, help="records.jsonl of a forced-action run")
    parser.add_argument("--upper", type=float, help="break this upper threshold down per dataset")
    parser.add_argument("--lower", type=float, help="... with this lower threshold")
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="grade each question's retrieval again with today's evaluator and grading",
    )
    parser.add_argument("--home", help="acrag home of the run's index (default: the acrag home)")
    parser.add_argument(
        "--decide",
        action="store_true",
        help="write --upper/--lower as the graph's thresholds for today's evaluator weights",
    )
    args = parser.parse_args(argv)
    if args.decide and (args.upper is None or args.lower is None):
        parser.error("--decide needs --upper and --lower")
    records = list(read_records(args.records).values())
    try:
        if args.rescore:
            records = _rescored(args.records, records, home=args.home)
    except UserError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    print(f"{len(_by_question(records))} questions with all three actions\n")  # noqa: T201
    print(table(frontier(sweep(records))))  # noqa: T201 - CLI output
    if args.upper is not None and args.lower is not None:
        print(f"\nupper {args.upper:+.2f}, lower {args.lower:+.2f}, per dataset:\n")  # noqa: T201
        print(breakdown(records, args.upper, args.lower))  # noqa: T201 - CLI output
    if args.decide:
        path = write_decision(records, args.upper, args.lower, source=args.records)
        print(f"\nwrote {path}")  # noqa: T201 - CLI output
    return 0


def write_decision(
    records: Sequence[Record],
    upper: float,
    lower: float,
    *,
    source: Path,
    artifact: Path | None = None,
) -> Path:
    """Record `upper`/`lower` as CRAG's thresholds for the evaluator weights in `artifact`.

    The file names the weights it was chosen for (`models.evaluator.load_thresholds` refuses
    it for others) and the evidence: the sweep point and the records it was replayed from.
    """
    from models.evaluator import ARTIFACT_DIR, DECISION

    folder = artifact or ARTIFACT_DIR
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    point = next(
        (p for p in sweep(records) if (p.upper, p.lower) == (upper, lower)),
        None,
    )
    decision = {
        "upper": upper,
        "lower": lower,
        "weights_sha256": manifest.get("weights_sha256"),
        "chosen_by": "answer accuracy for the tokens spent (bench.suites.crag_sweep)",
        "records": portable_path(source),
        "sweep_point": asdict(point) if point else None,
    }
    path = folder / DECISION
    path.write_text(json.dumps(decision, indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    raise SystemExit(main())
