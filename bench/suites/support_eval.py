"""How well the support judges tell a reader's right answers from its wrong ones.

Reads benchmark records (`bench.harness.records.Record` JSON lines) and keeps every answered record
(not abstained, no error) of the chosen strategies (`single`, `crag-correct`). The evidence the
reader saw is rebuilt without any LLM (`bench.harness.replay`):

- `retrieved` (default): the run's corpus (the QA files `run.json` beside the records names,
  else the given ones) indexed exactly as the benchmark indexes it (`bench.harness.corpus`, cached
  under the index root, so a benchmark's own home is reused), and the question retrieved with
  the run's `top_k` and `retrieval_mode`, passages whole: what `single` reads. `crag-correct`
  read evaluator-refined strips of these same passages, so for it this is a superset.
- `own`: the question's own passages in its QA file (gold plus distractors).

Each judge's support score (trained: its raw score; heuristic and LLM: P(full) + P(partial)/2,
reflect's IsSup; `confidence`, when every record carries the reader's answer log-probability:
its mean token probability) is set against the record's Acc: the ROC AUC of right (acc = 1)
versus wrong answers with a bootstrap 95% interval, and the share of right answers each judge
calls `none` (what abstention on `none` would throw away) and of wrong ones (what it would
catch).
"""

import math
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from bench.harness.data import Question, load_questions
from bench.harness.judge_metrics import roc_auc
from bench.harness.records import Record, read_records
from bench.harness.replay import Replay
from models.errors import UserError
from models.judges import SupportChecker, SupportLevel

__all__ = ["EvidenceMode", "answered_records", "evaluate_reader_answers", "separation"]

EvidenceMode = Literal["retrieved", "own"]
Scorer = Callable[[Record, Sequence[str]], tuple[float, SupportLevel]]
CONFIDENT = 0.5
"""Mean token probability at or above which the `confidence` judge calls an answer supported."""


def answered_records(path: Path, strategies: Sequence[str]) -> list[Record]:
    """Return the records of `strategies` that gave an answer (not abstained, no error)."""
    return [
        r
        for r in read_records(path).values()
        if r.strategy in strategies and not r.abstained and r.error is None and r.prediction
    ]


def _evidence(
    path: Path, records: list[Record], *, mode: EvidenceMode, data: list[Path], index_root: Path
) -> list[list[str]]:
    replay = Replay(path, data=data, index_root=index_root)
    if mode == "own":
        questions = {(q.dataset, q.id): q for q in load_questions(replay.files)}
        return [[p.text for p in _question(questions, r).passages] for r in records]
    return [[d.page_content for d in replay.documents(r)] for r in records]


def _question(questions: dict[tuple[str, str], Question], record: Record) -> Question:
    try:
        return questions[(record.dataset, record.id)]
    except KeyError:
        raise UserError(f"{record.dataset}/{record.id} is in none of the QA files") from None


def separation(labels: Sequence[int], scores: Sequence[float], *, seed: int = 0) -> dict[str, Any]:
    """Return the ROC AUC of `scores` for `labels` and a bootstrap 95% interval (1,000 draws)."""
    rng, n, draws = random.Random(seed), len(labels), []
    for _ in range(1000 if n else 0):
        picked = [rng.randrange(n) for _ in range(n)]
        value = roc_auc([labels[i] for i in picked], [scores[i] for i in picked])
        if value == value:  # a draw with one class only has no AUC
            draws.append(value)
    draws.sort()
    interval = [draws[int(0.025 * len(draws))], draws[int(0.975 * len(draws)) - 1]] if draws else []
    return {"auc": roc_auc(labels, scores), "auc_95": interval}


def _summary(records: list[Record], verdicts: list[tuple[float, SupportLevel]]) -> dict[str, Any]:
    labels = [int(r.acc >= 1.0) for r in records]
    right = [level for (_, level), y in zip(verdicts, labels, strict=True) if y]
    wrong = [level for (_, level), y in zip(verdicts, labels, strict=True) if not y]
    levels: tuple[SupportLevel, ...] = ("full", "partial", "none")
    return {
        **separation(labels, [score for score, _ in verdicts]),
        "false_abstention": right.count("none") / len(right) if right else None,
        "caught": wrong.count("none") / len(wrong) if wrong else None,
        "levels": {
            "right": {level: right.count(level) for level in levels},
            "wrong": {level: wrong.count(level) for level in levels},
        },
    }


def _checker(judge: SupportChecker) -> Scorer:
    def score(record: Record, evidence: Sequence[str]) -> tuple[float, SupportLevel]:
        found = judge.support(record.question, record.prediction, evidence)
        return found["full"] + 0.5 * found["partial"], max(found, key=lambda k: found[k])

    return score


def _confidence(record: Record) -> tuple[float, SupportLevel]:
    """The reader's own confidence: its answer tokens' mean probability (none under one half)."""
    probability = math.exp(record.logprob or 0.0)
    return probability, "full" if probability >= CONFIDENT else "none"


def _judges(artifact: Path | None, llm: str | None) -> dict[str, Scorer]:
    from models.judges_heuristic import HeuristicSupportChecker
    from models.support import load_support_judge, support_level

    trained = load_support_judge(artifact)
    if trained.thresholds is None:
        raise UserError("the support artifact records no thresholds; calibrate it first")
    cuts = trained.thresholds

    def raw(record: Record, evidence: Sequence[str]) -> tuple[float, SupportLevel]:
        value = trained.score(record.question, record.prediction, evidence)
        return value, support_level(value, cuts)

    judges = {"trained": raw, "heuristic": _checker(HeuristicSupportChecker())}
    if llm:
        from models.chat import load_chat_model
        from models.judges_llm import LlmSupportChecker

        judges["llm"] = _checker(LlmSupportChecker(load_chat_model(llm)))
    return judges


def evaluate_reader_answers(
    paths: Sequence[Path],
    *,
    data: Sequence[Path] = (),
    evidence: EvidenceMode = "retrieved",
    index_root: Path,
    strategies: Sequence[str] = ("single", "crag-correct"),
    artifact: Path | None = None,
    llm: str | None = None,
) -> dict[str, Any]:
    """Score every answered record's prediction against its evidence with each judge.

    Args:
        paths: Benchmark `records.jsonl` files.
        data: QA files holding the records' questions, for runs without a `run.json`.
        evidence: How the evidence is rebuilt (module docstring).
        index_root: Where benchmark corpus indexes are cached (built when missing).
        strategies: The strategies whose records count.
        artifact: Support-judge artifact folder; the committed one by default.
        llm: Chat model spec for the LLM judge too (slow); None leaves it out.
    """
    judges = _judges(artifact, llm)
    records: list[Record] = []
    verdicts: dict[str, list[tuple[float, SupportLevel]]] = defaultdict(list)
    for path in paths:
        found = answered_records(path, strategies)
        seen = _evidence(path, found, mode=evidence, data=list(data), index_root=index_root)
        for name, judge in judges.items():
            verdicts[name] += [judge(r, e) for r, e in zip(found, seen, strict=True)]
        records += found
    if records and all(r.logprob is not None for r in records):
        verdicts["confidence"] = [_confidence(r) for r in records]
    report: dict[str, Any] = {
        "files": [str(p) for p in paths],
        "evidence": evidence,
        "strategies": list(strategies),
    }
    return report | _report(records, verdicts)


def _report(
    records: list[Record], verdicts: dict[str, list[tuple[float, SupportLevel]]]
) -> dict[str, Any]:
    """Return the counts and every judge's summary, overall and per reader model."""
    by_model: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        by_model[record.model or "unknown"].append(index)

    def summarize(picked: list[int]) -> dict[str, Any]:
        chosen = [records[i] for i in picked]
        return {
            "answers": len(chosen),
            "right": sum(r.acc >= 1.0 for r in chosen),
            **{n: _summary(chosen, [v[i] for i in picked]) for n, v in verdicts.items()},
        }

    every = summarize(list(range(len(records))))
    return every | {"by_model": {m: summarize(p) for m, p in sorted(by_model.items())}}
