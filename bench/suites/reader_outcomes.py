"""The default reader's own answers, with both candidates and their token log-probabilities.

python -m bench.suites.reader_outcomes --data FILE ... --out OUT.jsonl [--ids IDS.txt]
    [--per-file N] [--seed 0] [--model qwen2.5-coder-1.5b] [--home H] [--max-seconds S]

For each question (the `--ids` listed, else `--per-file` drawn per file with `--seed`), the
first local retrieval of route B is made as the graph makes it, without the graph's other
LLM calls: the questions' own corpus (`bench.harness.corpus`, indexed under the acrag home),
the default Context's `top_k` and mode, every passage cut into strips and scored by the shipped
evaluator, the kept strips chosen by `best_strips` (threshold and `strips_top_k`), and the
candidates written from `evidence_groups` (all kept strips, then the best passage's strips:
`Context.candidates` = 2 under reflection) by the reader with the graph's prompt, short answer
style and token cap, with log-probabilities on. CRAG's action is recorded (from the best
grade and the calibrated thresholds) but not acted on: every question is answered from its
local strips, so rows can be filtered by action afterwards.

One JSON line per question is appended and flushed as it finishes; questions already in OUT
are skipped, so a stopped run resumes. Each candidate keeps its text, its generated tokens
with their log-probabilities, its scores against the gold answers and its seconds.
`python -m bench.suites.answer_confidence --outcomes OUT ...` fits on them.
"""

import argparse
import json
import logging
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.corpus import build_corpus, prepare_home
from bench.harness.data import Question, load_questions
from bench.harness.metrics import score_prediction
from bench.harness.runner import make_context
from models.defaults import DEFAULT_MODEL

__all__ = ["choose", "main", "outcome_rows", "read_outcomes", "token_logprobs"]

logger = logging.getLogger(__name__)


def choose(
    listed: Sequence[Question],
    drawn: Sequence[Question] = (),
    *,
    ids: set[str] | None = None,
    per_file: int | None = None,
    seed: int = 0,
) -> list[Question]:
    """Return `listed` (those in `ids` when given) and `per_file` of `drawn` per dataset.

    The draw and the final order are fixed by `seed`, so a partial run is a random subset.
    """
    chosen = [q for q in listed if ids is None or q.id in ids]
    for dataset in sorted({q.dataset for q in drawn}):
        pool = [q for q in drawn if q.dataset == dataset]
        random.Random(f"{seed}:{dataset}").shuffle(pool)
        chosen += pool[: per_file or len(pool)]
    chosen = list({(q.dataset, q.id): q for q in chosen}.values())
    random.Random(seed).shuffle(chosen)
    return chosen


def token_logprobs(metadata: dict[str, Any]) -> list[tuple[str, float]]:
    """Return the (token, log-probability) pairs of a reply's `response_metadata`."""
    content = (metadata.get("logprobs") or {}).get("content") or []
    return [
        (str(e.get("token", "")), float(e["logprob"]))
        for e in content
        if isinstance(e, dict) and "logprob" in e
    ]


def read_outcomes(path: Path) -> list[dict[str, Any]]:
    """Return the outcome lines of a file, the last per question."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return list({_key(line): line for line in lines}.values())


def _row(
    line: dict[str, Any], candidate: dict[str, Any], others: list[str]
) -> tuple[dict[str, Any], dict[str, float]]:
    from models.answer_check import answer_features, reader_features

    tokens = [(str(t), float(v)) for t, v in candidate["tokens"]]
    mean = sum(v for _, v in tokens) / len(tokens) if tokens else None
    evidence = [(str(t), float(v)) for t, v in candidate["strips"]]
    features = answer_features(line["question"], candidate["text"], mean, evidence)
    row = {**line, "prediction": candidate["text"], "acc": candidate["acc"]}
    return row, features | reader_features(candidate["text"], tokens, others)


def outcome_rows(
    lines: Sequence[dict[str, Any]],
    dev_ids: set[str],
    *,
    all_actions: bool = False,
    fit_all_candidates: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, float]], list[str]]:
    """Return one row per answered question (its first candidate), its features and side.

    The first candidate is the one the graph streams (written from all kept strips); its
    features are `answer_features` against its strips (the log-probability is the mean over
    every generated token, as the graph records it) and `reader_features` against the other
    candidates. A first candidate that says NOT FOUND is an abstention, not an answer: left
    out. Questions listed in `dev_ids` are "dev"; the others "fit", except those whose
    text a dev question has too ("skip"). Questions CRAG would not answer from the local
    strips (Incorrect) are left out unless `all_actions`. With `fit_all_candidates`, the fit
    questions' other candidates (not NOT FOUND) are rows too, each against the rest.
    """
    from prompts.generate import NOT_FOUND

    dev_texts = {line["question"].strip().lower() for line in lines if line["id"] in dev_ids}
    rows, table, sides = [], [], []
    for line in lines:
        candidates = [c for c in line["candidates"] if c["text"].strip()]
        if not candidates or NOT_FOUND in candidates[0]["text"].upper():
            continue  # the graph abstains: no answer to check
        if line["crag_action"] == "Incorrect" and not all_actions:
            continue
        text = line["question"].strip().lower()
        side = "dev" if line["id"] in dev_ids else "skip" if text in dev_texts else "fit"
        for index, candidate in enumerate(candidates):
            if index and (side != "fit" or not fit_all_candidates):
                break
            if NOT_FOUND in candidate["text"].upper():
                continue
            others = [c["text"] for c in candidates if c is not candidate]
            row, features = _row(line, candidate, others)
            rows.append(row)
            table.append(features)
            sides.append(side)
    return rows, table, sides


class _Reader:
    """The first local retrieval, its strips and the reader's candidates, as the graph does."""

    def __init__(self, questions: Sequence[Question], *, model: str, root: Path) -> None:
        from graphs.deps import Deps

        home = prepare_home(build_corpus(questions), root)
        self.context = make_context("self-crag", model=model, settings={}, home=home)
        deps = Deps()
        self.retriever = deps.retriever_for(self.context)
        self.evaluator = deps.evaluator_for(self.context)
        self.generator = deps.generator_for(self.context)
        self.thresholds = self.context.crag_thresholds()

    def answer(self, question: Question) -> dict[str, Any]:
        from nodes.generate import answer_messages, clean_answer, evidence_groups
        from nodes.refine_strips import passage_strips
        from nodes.retrieve import to_passage

        context = self.context
        passages = [
            to_passage(d, query=question.question, step=0)
            for d in self.retriever.invoke(question.question)
        ]
        strips: list[Any] = []
        for passage in passages:
            for order, text in enumerate(passage_strips(passage["text"], context)):
                strips.append(
                    {"passage_hash": passage["hash"], "order": order, "text": text}
                    | {"title": passage["title"]}
                )
        scores = self.evaluator.score(question.question, [s["text"] for s in strips])
        for strip, score in zip(strips, scores, strict=True):
            strip["score"] = round(float(score), 4)
        from nodes.refine_strips import best_strips

        picked = best_strips(
            [(s["text"], s["score"]) for s in strips],
            threshold=self.thresholds.strip,
            top_k=context.strips_top_k,
        )
        rank = {p["hash"]: i for i, p in enumerate(passages)}
        kept = sorted(
            (strips[i] for i in picked), key=lambda s: (rank[s["passage_hash"]], s["order"])
        )
        best = max((s["score"] for s in strips), default=None)
        groups = evidence_groups(kept, count=context.candidates, per_passage=True)
        candidates = []
        for evidence in groups if kept else []:
            started = time.perf_counter()
            reply = self.generator.invoke(
                answer_messages(question.question, evidence, short=True),
                max_tokens=context.max_answer_tokens,
                logprobs=True,
            )
            text = clean_answer(str(reply.content), short=True)
            scores_ = score_prediction(text, question.answers)
            candidates.append(
                {
                    "text": text,
                    "raw": str(reply.content),
                    "tokens": token_logprobs(reply.response_metadata),
                    "strips": [[s["text"], s["score"]] for s in evidence],
                    "em": scores_.em,
                    "f1": scores_.f1,
                    "acc": scores_.acc,
                    "seconds": round(time.perf_counter() - started, 3),
                }
            )
        action = (
            None
            if best is None
            else "Correct"
            if best >= self.thresholds.upper
            else "Incorrect"
            if best < self.thresholds.lower
            else "Ambiguous"
        )
        return {
            "dataset": question.dataset,
            "id": question.id,
            "question": question.question,
            "answers": list(question.answers),
            "model": context.generator_model,
            "best_score": best,
            "crag_action": action,
            "strips": [[s["text"], s["score"]] for s in strips],
            "kept": [[s["text"], s["score"]] for s in kept],
            "candidates": candidates,
        }


def _key(line: dict[str, Any]) -> tuple[str, str]:
    return str(line["dataset"]), str(line["id"])


def main(argv: Sequence[str] | None = None) -> int:
    """Answer the chosen questions with the reader and append their outcomes."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suites.reader_outcomes", description=__doc__
    )
    parser.add_argument("--data", nargs="*", type=Path, default=[], help="QA files (all or --ids)")
    parser.add_argument("--draw", nargs="*", type=Path, default=[], help="QA files to draw from")
    parser.add_argument("--out", type=Path, required=True, help="outcomes (JSON lines)")
    parser.add_argument("--ids", type=Path, help="a file of question ids, one a line")
    parser.add_argument("--per-file", type=int, help="questions drawn per dataset of --draw")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the reader")
    parser.add_argument("--home", help="acrag home for the index (default: the acrag home)")
    parser.add_argument("--max-seconds", type=float, help="stop after this many seconds")
    args = parser.parse_args(argv)
    from stores.home import acrag_home

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    ids = None
    if args.ids:
        ids = set(args.ids.read_text(encoding="utf-8").split())
    chosen = choose(
        load_questions(args.data),
        load_questions(args.draw),
        ids=ids,
        per_file=args.per_file,
        seed=args.seed,
    )
    done = set()
    if args.out.is_file():
        lines = args.out.read_text(encoding="utf-8").splitlines()
        done = {_key(json.loads(line)) for line in lines if line.strip()}
    reader = _Reader(chosen, model=args.model, root=acrag_home(args.home) / "bench" / "indexes")
    started = time.perf_counter()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for number, question in enumerate(chosen, start=1):
        if (question.dataset, question.id) in done:
            continue
        if args.max_seconds and time.perf_counter() - started > args.max_seconds:
            logger.info("time budget spent; rerun the same command to resume")
            break
        line = reader.answer(question)
        with args.out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        accs = [c["acc"] for c in line["candidates"]]
        logger.info("%d/%d %s acc=%s", number, len(chosen), question.id, accs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
