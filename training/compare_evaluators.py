"""Is one evaluator's AUC above another's beyond noise? Both scored on the same pairs.

python -m training.compare_evaluators --data ../shared/data/qa/*.dev.jsonl --limit 400 \
    models/artifacts/evaluator CANDIDATE [--docs DIR]

The pairs are `acrag judges eval`'s (`training.hard_eval.topic_pairs`, the same seeded sample
of questions), so the AUCs printed match its report. Each measure (the same names: `all`,
`positive_vs_hard`, `musique`, `positive_vs_answerless`, ...) is given for both evaluators with
the difference B - A and a 95% interval from a bootstrap over questions (a question's pairs are
drawn together: they share its wording and passages).
"""

import argparse
import json
import random
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench.harness.judge_metrics import roc_auc
from bench.harness.probability_fit import resample_groups
from training.data import Pair, load_records
from training.hard_eval import TOPIC_KINDS, sample, topic_pairs

__all__ = ["AucDifference", "compare", "main", "measures"]

_BASE = frozenset({"positive", "hard", "easy"})
_TOPIC = frozenset({"positive", *TOPIC_KINDS})


def _keeps(kinds: frozenset[str], dataset: str, pair: Pair) -> bool:
    return pair.kind in kinds and dataset in ("", pair.dataset)


def measures(pairs: Sequence[Pair]) -> dict[str, Callable[[Pair], bool]]:
    """Return the report's measures as filters over pairs (each keeps the pairs it is over)."""
    kinds: dict[str, tuple[frozenset[str], str]] = {
        "all": (_BASE, ""),
        "all_with_topic": (_BASE | _TOPIC, ""),
        "positive_vs_hard": (frozenset({"positive", "hard"}), ""),
        "positive_vs_topic": (_TOPIC, ""),
    }
    for kind in TOPIC_KINDS[1:]:
        kinds[f"positive_vs_{kind}"] = (frozenset({"positive", kind}), "")
    for dataset in sorted({p.dataset for p in pairs}):
        kinds[dataset] = (_BASE, dataset)
    return {name: partial(_keeps, *spec) for name, spec in kinds.items()}


@dataclass(frozen=True)
class AucDifference:
    """One measure's AUC for both evaluators, and B - A with its bootstrap 95% interval."""

    measure: str
    pairs: int
    a: float
    b: float
    low: float
    high: float

    def __str__(self) -> str:
        """Return one markdown table row."""
        diff = self.b - self.a
        return (
            f"| {self.measure} | {self.pairs} | {self.a:.3f} | {self.b:.3f} | "
            f"{diff:+.3f} [{self.low:+.3f}, {self.high:+.3f}] |"
        )


def _auc(pairs: Sequence[Pair], scores: Sequence[float], rows: Sequence[int]) -> float | None:
    labels = [pairs[i].label for i in rows]
    if len(set(labels)) < 2:
        return None
    return roc_auc(labels, [scores[i] for i in rows])


def compare(
    pairs: Sequence[Pair],
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> list[AucDifference]:
    """Return every measure that has both labels: both AUCs and B - A, resampling questions."""
    rng = random.Random(seed)
    found = []
    for name, keep in measures(pairs).items():
        by_question: dict[str, list[int]] = defaultdict(list)
        for index, pair in enumerate(pairs):
            if keep(pair):
                by_question[pair.question].append(index)
        groups = list(by_question.values())
        rows = [i for group in groups for i in group]
        auc_a, auc_b = _auc(pairs, a, rows), _auc(pairs, b, rows)
        if auc_a is None or auc_b is None:
            continue

        def difference(drawn: list[int]) -> float | None:
            left, right = _auc(pairs, a, drawn), _auc(pairs, b, drawn)
            return None if left is None or right is None else right - left

        interval = resample_groups(groups, difference, rng=rng, resamples=resamples)
        if interval is None:  # every resample held one label only: no interval to give
            continue
        found.append(AucDifference(name, len(rows), auc_a, auc_b, *interval))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Score the pairs with both evaluators and print the table of differences."""
    from models.evaluator import load_evaluator

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="evaluator artifact A (e.g. the shipped one)")
    parser.add_argument("b", type=Path, help="evaluator artifact B (the candidate)")
    parser.add_argument("--data", type=Path, nargs="+", required=True, help="questions (JSONL)")
    parser.add_argument("--limit", type=int, help="the seeded sample `acrag judges eval` takes")
    parser.add_argument("--docs", type=Path, help="documentation files (neighbour negatives)")
    parser.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    records = sample(load_records(args.data), args.limit)
    pairs = topic_pairs(records, docs_dir=args.docs)
    questions, texts = [p.question for p in pairs], [p.text for p in pairs]
    scores = [load_evaluator(path).score_pairs(questions, texts) for path in (args.a, args.b)]
    rows = compare(pairs, scores[0], scores[1])
    print(f"{len(records)} questions, {len(pairs)} pairs; A = {args.a}, B = {args.b}\n")  # noqa: T201
    print("| measure | pairs | A AUC | B AUC | B - A [95%] |\n|---|---:|---:|---:|---|")  # noqa: T201
    for row in rows:
        print(row)  # noqa: T201 - CLI output
    if args.json:
        args.json.write_text(json.dumps([vars(r) for r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
