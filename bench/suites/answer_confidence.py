"""Is the reader's own answer right? A small model fit on the default reader's benchmark outcomes.

python -m bench.suites.answer_confidence [RECORDS ...] [--model qwen2.5-coder-0.5b]
    [--dev-share 0.4]

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

A logistic regression (scikit-learn, standardised features) is fit on the fit questions; the
report gives the dev AUC with a bootstrap interval over dev questions, each feature's own dev
AUC, and the cut that keeps 95% of right dev answers with the share of wrong ones it catches.
"""

import argparse
import hashlib
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.judge_metrics import roc_auc
from bench.harness.metrics import normalize_answer

__all__ = ["features", "fit_and_report", "load_rows", "main", "split_of"]

ROOT = Path(__file__).resolve().parents[2]
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER = re.compile(r"\d")
BASE = ["logprob", "logprob_missing", "best_score", "best_missing", "answer_words"]
FEATURES = [*BASE, "in_question", "type_match"]


def split_of(question: str, dev_share: float) -> str:
    """Return "dev" or "fit" for a question, by a stable hash of its text."""
    digest = int(hashlib.sha256(question.strip().lower().encode()).hexdigest()[:8], 16)
    return "dev" if digest % 1000 < dev_share * 1000 else "fit"


def load_rows(paths: Sequence[Path], model: str) -> list[dict[str, Any]]:
    """Return the reader's answered records, one per (question, strategy, answer)."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if record.get("model") != model or record.get("error") or record.get("abstained"):
                continue
            if not str(record.get("prediction") or "").strip() or "question" not in record:
                continue
            key = (record["question"], record["strategy"], normalize_answer(record["prediction"]))
            rows.setdefault(key, record)
    return list(rows.values())


def _type_match(question: str, answer: str) -> float:
    asked = question.lower()
    if asked.startswith(("when", "what year", "in what year", "which year")):
        return float(bool(_YEAR.search(answer)))
    if asked.startswith(("how many", "how much", "how old", "how long")):
        return float(bool(_NUMBER.search(answer)))
    if asked.startswith(("who", "where")):
        return float(answer[:1].isupper())
    return 0.5


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
        "type_match": _type_match(question, answer),
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


def _bootstrap(
    labels: list[int], scores: list[float], groups: list[str], seed: int = 0
) -> tuple[float, float]:
    """Return a 95% interval of the AUC, resampling questions (their rows go together)."""
    rng, values = random.Random(seed), []
    members: dict[str, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        members[group].append(index)
    names = sorted(members)
    for _ in range(500):
        idx = [i for _ in names for i in members[rng.choice(names)]]
        picked = [labels[i] for i in idx]
        if 0 < sum(picked) < len(picked):
            values.append(roc_auc(picked, [scores[i] for i in idx]))
    values.sort()
    return values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1]


def fit_and_report(
    rows: Sequence[dict[str, Any]], *, dev_share: float = 0.4, agreement: bool = False
) -> dict[str, Any]:
    """Split by question, fit the logistic regression on fit rows, report on dev rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    agree = _agreement(rows) if agreement else [None] * len(rows)
    table = [features(row, a) for row, a in zip(rows, agree, strict=True)]
    names = list(table[0])
    labels = [int(float(row.get("acc") or 0) > 0) for row in rows]
    sides = [split_of(row["question"], dev_share) for row in rows]
    fit = [i for i, side in enumerate(sides) if side == "fit"]
    dev = [i for i, side in enumerate(sides) if side == "dev"]
    matrix = [[f[n] for n in names] for f in table]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    model.fit([matrix[i] for i in fit], [labels[i] for i in fit])
    scores = model.predict_proba([matrix[i] for i in dev])[:, 1].tolist()
    dev_labels = [labels[i] for i in dev]
    low, high = _bootstrap(dev_labels, scores, [rows[i]["question"] for i in dev])
    right = sorted(s for s, label in zip(scores, dev_labels, strict=True) if label)
    cut = right[int(0.05 * len(right))] if right else 0.5
    wrong = [s for s, label in zip(scores, dev_labels, strict=True) if not label]
    coefficients = model[-1].coef_[0].tolist()
    return {
        "rows": {"fit": len(fit), "dev": len(dev), "dev_right": sum(dev_labels)},
        "questions": {
            side: len({rows[i]["question"] for i in idx})
            for side, idx in (("fit", fit), ("dev", dev))
        },
        "dev_auc": round(roc_auc(dev_labels, scores), 3),
        "dev_auc_interval": [round(low, 3), round(high, 3)],
        "feature_dev_auc": {
            n: round(roc_auc(dev_labels, [table[i][n] for i in dev]), 3) for n in names
        },
        "coefficients": dict(zip(names, [round(c, 3) for c in coefficients], strict=True)),
        "abstain_cut_95": {
            "probability": round(cut, 3),
            "wrong_caught": round(sum(s < cut for s in wrong) / max(1, len(wrong)), 3),
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Fit and report the reader-answer correctness signal."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suites.answer_confidence", description=__doc__
    )
    parser.add_argument("records", nargs="*", type=Path, help="records.jsonl files")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="the reader's records")
    parser.add_argument("--dev-share", type=float, default=0.4, help="share of dev questions")
    parser.add_argument("--agreement", action="store_true", help="add candidate agreement")
    args = parser.parse_args(argv)
    paths = args.records or sorted((ROOT / "docs" / "bench").rglob("records.jsonl"))
    rows = load_rows(paths, args.model)
    if not rows:
        parser.error(f"no answered records of {args.model} in {len(paths)} files")
    result = fit_and_report(rows, dev_share=args.dev_share, agreement=args.agreement)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
