"""Is the reader's own answer right? A small model fit on the default reader's benchmark outcomes.

python -m bench.suites.answer_confidence [RECORDS ...] [--model qwen2.5-coder-0.5b ...]
    [--dev-share 0.4] [--agreement] [--evidence CACHE] [--features NAME ...] [--fit-model M]
python -m bench.suites.answer_confidence --outcomes OUT.jsonl --dev-ids IDS.txt
    [--features NAME ...] [--fit-all-candidates] [--all-actions] [--save DIR]

Rows: every answered record of the reader (`model`) in the given `records.jsonl` files (by
default all of `docs/bench/**/records.jsonl`), deduplicated by (question, strategy, answer).
Questions are split into fit and dev by a hash of the question text BEFORE anything is fitted,
so no question is on both sides. Features, all known when the answer is written (no LLM):

- `logprob`: the answer's mean token log-probability (missing: the fit mean, plus a flag);
- `best_score`: the evaluator's best grade of the first retrieval (missing: 0, plus a flag);
- `answer_words`, `in_question`: the answer's length and the share of its words the question
  already holds (a reader that echoes the question is usually wrong);
- `type_match`: the answer has the shape the question asks for (a year for "when", a number
  for "how many", a capitalised name for "who"/"where"), from `models.text`-free rules;
- `agreement` (optional, `--agreement`): the share of the reader's other answers to the same
  question (other strategies) that match this one: a stand-in for candidate agreement.

With `--evidence` (the cache of `bench.suites.answer_evidence`), only the rows whose evidence
was rebuilt are used and their features are `models.answer_check.answer_features` (the above
plus the answer against the kept strips). `--fit-model` fits one reader's rows and reports each
other reader's dev rows apart.

With `--outcomes` (the default reader's answers of `bench.suites.reader_outcomes`, both
candidates with their tokens), the rows are those outcomes' first candidates, their features
`answer_features` plus `reader_features` (the answer span's log-probabilities, the candidates'
agreement); the questions in `--dev-ids` are dev, the others fit (`outcome_rows`), and
`--save` writes the fit check with its sha256 (`AnswerCheck.save`).

A logistic regression (scikit-learn, standardised features) is fit on the fit questions; the
report gives the dev AUC with a bootstrap interval over dev questions, each feature's own dev
AUC, and the cut that keeps 95% of right dev answers with the share of wrong ones it catches.
"""

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.judge_metrics import roc_auc
from bench.harness.metrics import normalize_answer
from bench.harness.probability_fit import fit_logistic, judged
from models.answer_check import type_match

__all__ = ["features", "fit_and_report", "load_rows", "main", "split_of"]

ROOT = Path(__file__).resolve().parents[2]
BASE = ["logprob", "logprob_missing", "best_score", "best_missing", "answer_words"]
FEATURES = [*BASE, "in_question", "type_match"]


def split_of(question: str, dev_share: float) -> str:
    """Return "dev" or "fit" for a question, by a stable hash of its text."""
    digest = int(hashlib.sha256(question.strip().lower().encode()).hexdigest()[:8], 16)
    return "dev" if digest % 1000 < dev_share * 1000 else "fit"


def load_rows(paths: Sequence[Path], model: str | Sequence[str]) -> list[dict[str, Any]]:
    """Return the readers' answered records, one per (reader, question, strategy, answer).

    Each row keeps the records file it came from under `records_file`.
    """
    models = {model} if isinstance(model, str) else set(model)
    rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if record.get("model") not in models or record.get("error"):
                continue
            if record.get("abstained") or "question" not in record:
                continue
            if not str(record.get("prediction") or "").strip():
                continue
            answer = normalize_answer(record["prediction"])
            key = (record["model"], record["question"], record["strategy"], answer)
            rows.setdefault(key, {**record, "records_file": str(path)})
    return list(rows.values())


def features(row: dict[str, Any], agreement: float | None = None) -> dict[str, float]:
    """Return one row's features (see the module docstring)."""
    answer, question = str(row["prediction"]), str(row["question"])
    words = normalize_answer(answer).split()
    asked = set(normalize_answer(question).split())
    logprob, best = row.get("logprob"), row.get("best_score")
    out = {
        "logprob": float(logprob) if logprob is not None else 0.0,
        "logprob_missing": float(logprob is None),
        "best_score": float(best) if best is not None else 0.0,
        "best_missing": float(best is None),
        "answer_words": float(min(len(words), 30)),
        "in_question": sum(w in asked for w in words) / max(1, len(words)),
        "type_match": type_match(question, answer),
    }
    if agreement is not None:
        out["agreement"] = agreement
    return out


def _agreement(rows: Sequence[dict[str, Any]]) -> list[float]:
    answers: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        answers[row["question"]].append(normalize_answer(row["prediction"]))
    out = []
    for row in rows:
        mine, others = normalize_answer(row["prediction"]), answers[row["question"]]
        rest = len(others) - 1
        out.append((others.count(mine) - 1) / rest if rest else 0.0)
    return out


def fit_and_report(
    rows: Sequence[dict[str, Any]],
    *,
    dev_share: float = 0.4,
    agreement: bool = False,
    table: Sequence[dict[str, float]] | None = None,
    names: Sequence[str] | None = None,
    fit_model: str | None = None,
    sides: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Split by question, fit the logistic regression on fit rows, report on dev rows.

    `table` replaces the features of each row (`features` by default); `names` picks the
    columns. With `fit_model`, only that reader's fit rows are fit, and each other reader's
    dev rows are reported apart (`other_readers`). `sides` ("fit", "dev" or "skip" per row)
    replaces the split by question hash.
    """
    agree = _agreement(rows) if agreement else [None] * len(rows)
    if table is None:
        table = [features(row, a) for row, a in zip(rows, agree, strict=True)]
    elif agreement:
        table = [{**f, "agreement": a or 0.0} for f, a in zip(table, agree, strict=True)]
    names = [*(names or table[0]), *(["agreement"] if agreement and names else [])]
    labels = [int(float(row.get("acc") or 0) > 0) for row in rows]
    if sides is None:
        sides = [split_of(row["question"], dev_share) for row in rows]
    own = [fit_model in (None, row.get("model")) for row in rows]
    fit = [i for i, side in enumerate(sides) if side == "fit" and own[i]]
    dev = [i for i, side in enumerate(sides) if side == "dev" and own[i]]
    model = fit_logistic([table[i] for i in fit], [labels[i] for i in fit], names)

    def report_on(idx: list[int]) -> dict[str, Any]:
        return judged(
            model,
            [table[i] for i in idx],
            [labels[i] for i in idx],
            names,
            [rows[i]["question"] for i in idx],
        )

    scaler, regression = model[0], model[-1]
    report = {
        "rows": {"fit": len(fit), "dev": len(dev), "dev_right": sum(labels[i] for i in dev)},
        "questions": {
            side: len({rows[i]["question"] for i in idx})
            for side, idx in (("fit", fit), ("dev", dev))
        },
        "dev": report_on(dev),
        "feature_dev_auc": {
            n: round(roc_auc([labels[i] for i in dev], [table[i][n] for i in dev]), 3)
            for n in names
        },
        "coefficients": dict(zip(names, [round(c, 3) for c in regression.coef_[0]], strict=True)),
        "model": {
            "names": list(names),
            "means": [round(float(v), 6) for v in scaler.mean_],
            "scales": [round(float(v), 6) for v in scaler.scale_],
            "weights": [round(float(v), 6) for v in regression.coef_[0]],
            "bias": round(float(regression.intercept_[0]), 6),
        },
    }
    report["dev_auc"], report["dev_auc_interval"] = (
        report["dev"]["auc"],
        report["dev"]["auc_interval"],
    )
    report["abstain_cut_95"] = report["dev"]["abstain_cut_95"]
    others = sorted(
        {str(row.get("model")) for row, mine in zip(rows, own, strict=True) if not mine}
    )
    report["other_readers"] = {
        name: report_on(
            [i for i in range(len(rows)) if sides[i] == "dev" and rows[i].get("model") == name]
        )
        for name in others
    }
    return report


def _outcomes(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Fit on the train questions of an outcomes file, report on its dev questions."""
    from bench.suites.reader_outcomes import outcome_rows, read_outcomes

    if not args.dev_ids:
        parser.error("--outcomes needs --dev-ids")
    dev_ids = set(args.dev_ids.read_text(encoding="utf-8").split())
    rows, table, sides = outcome_rows(
        read_outcomes(args.outcomes),
        dev_ids,
        all_actions=args.all_actions,
        fit_all_candidates=args.fit_all_candidates,
    )
    if not rows:
        parser.error(f"no answered question in {args.outcomes}")
    result = fit_and_report(rows, table=table, names=args.features or list(table[0]), sides=sides)
    if args.save:
        from models.answer_check import AnswerCheck

        fit = result["model"]
        check = AnswerCheck(
            tuple(fit["names"]),
            tuple(fit["means"]),
            tuple(fit["scales"]),
            tuple(fit["weights"]),
            fit["bias"],
        )
        result["model_sha256"] = check.save(
            args.save,
            outcomes_sha256=hashlib.sha256(args.outcomes.read_bytes()).hexdigest(),
            rows=result["rows"],
            dev_auc=result["dev_auc"],
            dev_auc_interval=result["dev_auc_interval"],
            abstain_cut_95=result["abstain_cut_95"],
            fit_all_candidates=args.fit_all_candidates,
        )
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Fit and report the reader-answer correctness signal."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suites.answer_confidence", description=__doc__
    )
    parser.add_argument("records", nargs="*", type=Path, help="records.jsonl files")
    parser.add_argument(
        "--model", nargs="+", default=["qwen2.5-coder-0.5b"], help="the readers' records"
    )
    parser.add_argument("--dev-share", type=float, default=0.4, help="share of dev questions")
    parser.add_argument("--agreement", action="store_true", help="add candidate agreement")
    parser.add_argument(
        "--evidence", type=Path, help="the evidence cache of bench.suites.answer_evidence"
    )
    parser.add_argument("--features", nargs="+", help="the feature columns (default: all)")
    parser.add_argument("--fit-model", help="fit on this reader's rows only; report others apart")
    parser.add_argument(
        "--outcomes", type=Path, help="outcomes of bench.suites.reader_outcomes (not records)"
    )
    parser.add_argument("--dev-ids", type=Path, help="with --outcomes: the dev question ids")
    parser.add_argument(
        "--save", type=Path, help="with --outcomes: write the fit check (and its sha256) here"
    )
    parser.add_argument(
        "--all-actions", action="store_true", help="with --outcomes: keep CRAG Incorrect too"
    )
    parser.add_argument(
        "--fit-all-candidates",
        action="store_true",
        help="with --outcomes: fit every candidate of the fit questions, not only the first",
    )
    args = parser.parse_args(argv)
    if args.outcomes:
        return _outcomes(parser, args)
    paths = args.records or sorted((ROOT / "docs" / "bench").rglob("records.jsonl"))
    rows = load_rows(paths, args.model)
    if not rows:
        parser.error(f"no answered records of {args.model} in {len(paths)} files")
    table = None
    if args.evidence:
        from bench.suites.answer_evidence import join, read_cache

        rows, table = join(rows, read_cache(args.evidence))
        if not rows:
            parser.error(f"no answered record has its evidence in {args.evidence}")
    result = fit_and_report(
        rows,
        dev_share=args.dev_share,
        agreement=args.agreement,
        table=table,
        names=args.features,
        fit_model=args.fit_model,
    )
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
