"""Silver labels for the complexity classifier, made by the graph's own strategies.

Adaptive-RAG (section 3.2) labels a training question by running every strategy the classifier
chooses between and taking the simplest that answers correctly. Here those strategies are the
benchmark's (`bench.harness.strategies`: `no-retrieval`, `single`, `ircot`, i.e. routes A, B, C) run
through the benchmark runner (`bench.harness.runner.GraphRunner`), so the labels come from the very
routes the classifier picks. Each question gets an index of its own, built and cached as the
benchmark builds its indexes (`bench.harness.corpus`): the question's passages plus, as the
benchmark's
shared index does, other questions' passages of the same dataset as distractors, until it
holds `index_passages`. A strategy is correct when a gold answer occurs in its prediction (the
benchmark's Acc); the label follows the one oracle rule (`training.labels`).

Labelling is resumable: each question's row is appended to the JSONL file as soon as it is
made, and ids already in the file are skipped. A file holds one reader's labels only.
"""

import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tqdm.auto import tqdm

from bench.harness.corpus import Corpus, IngestFn, dedupe, prepare_home
from bench.harness.data import BenchPassage, Question
from bench.harness.oracle import route_of
from bench.harness.strategies import ORACLE_LADDER
from models.errors import UserError
from models.judges import Route
from training.answers import answer_in
from training.labels import question_label, readers_in

__all__ = [
    "Answered",
    "LabelConfig",
    "StrategyRunner",
    "dataset_corpus",
    "label_question",
    "labelled_ids",
    "question_corpus",
    "run_to_file",
    "select_subset",
]

logger = logging.getLogger(__name__)


class Answered(Protocol):
    """What a strategy run returns: at least the prediction."""

    @property
    def prediction(self) -> str:
        """Return the answer the strategy gave."""
        ...


class StrategyRunner(Protocol):
    """Answers one question with one benchmark strategy against the index in `home`."""

    def run(self, question: str, strategy: str, *, home: Path) -> Answered:
        """Return the run's result."""
        ...


@dataclass(frozen=True)
class LabelConfig:
    """How questions are labelled."""

    reader: str
    """Chat model spec that answers in every strategy (recorded in each row)."""
    index_root: Path
    """Where the per-question index homes are cached."""
    index_passages: int = 20
    """Add other questions' passages of the same dataset until an index holds this many; 0
    indexes every question's passages of the dataset once (the benchmark's kind of index)."""
    seed: int = 5
    """Seed of the distractor choice."""
    every_route: bool = False
    """Run all three routes; by default stop at the first correct one (its label is known)."""


def question_corpus(
    question: Question, pool: Sequence[Question], *, passages: int, seed: int
) -> Corpus:
    """Return the question's own index: its passages plus distractors up to `passages`.

    Distractors are whole questions' passages from the same dataset in `pool`, in an order
    fixed by `seed` and the question id. The offline web corpus stays empty: the plain
    strategies never search the web.
    """
    others = [q for q in pool if q.dataset == question.dataset and q.id != question.id]
    random.Random(f"{seed}:{question.id}").shuffle(others)
    chosen = dedupe(question.passages)
    for other in others:
        if len(chosen) >= passages:
            break
        chosen = dedupe([*chosen, *(BenchPassage(p.title, p.text) for p in other.passages)])
    return Corpus(local=tuple(chosen), web=())


def dataset_corpus(question: Question, pool: Sequence[Question]) -> Corpus:
    """Return one index for the question's whole dataset: every pool question's passages.

    As the benchmark indexes its files, so retrieval is as hard as at evaluation; the index
    is built once per dataset and cached (`bench.harness.corpus.prepare_home`).
    """
    mine = [q for q in pool if q.dataset == question.dataset] or [question]
    passages = [BenchPassage(p.title, p.text) for q in mine for p in q.passages]
    return Corpus(local=tuple(dedupe(passages)), web=())


def label_question(
    question: Question,
    runner: StrategyRunner,
    *,
    home: Path,
    reader: str,
    every_route: bool = False,
) -> dict[str, Any]:
    """Answer `question` with routes A, B, C in turn and return its label row.

    The label is the simplest correct route, so the ladder stops at the first correct answer
    (a row then records only the routes it ran) unless `every_route` asks for all three.
    """
    predictions: dict[Route, str] = {}
    logprobs: dict[Route, float | None] = {}
    correct: dict[Route, bool] = {}
    seconds: dict[Route, float] = {}
    for strategy in ORACLE_LADDER:
        route, started = route_of(strategy), time.perf_counter()
        outcome = runner.run(question.question, strategy, home=home)
        seconds[route] = round(time.perf_counter() - started, 3)
        predictions[route] = outcome.prediction
        logprobs[route] = getattr(outcome, "logprob", None)  # the reader's confidence, if known
        correct[route] = answer_in(predictions[route], question.answers)
        if correct[route] and not every_route:
            break
    label, source = question_label(correct, question.hop)
    return {
        "id": question.id,
        "dataset": question.dataset,
        "hop": question.hop,
        "question": question.question,
        "answers": list(question.answers),
        "reader": reader,
        "predictions": predictions,
        "logprobs": logprobs,
        "correct": correct,
        "label": label,
        "source": source,
        "seconds": seconds,
    }


def select_subset(questions: Sequence[Question], per_dataset: int, *, seed: int) -> list[Question]:
    """Pick up to `per_dataset` questions of each dataset (seeded), in a mixed order."""
    rng = random.Random(seed)
    chosen: list[Question] = []
    for dataset in sorted({q.dataset for q in questions}):
        group = [q for q in questions if q.dataset == dataset]
        chosen.extend(rng.sample(group, min(per_dataset, len(group))))
    rng.shuffle(chosen)
    return chosen


def labelled_ids(path: Path, *, reader: str, index: str | None = None) -> set[str]:
    """Return the ids already labelled in `path` by `reader` (with `index`-kind indexes).

    Raises:
        UserError: The file holds labels made by another reader (or by the old runner), or
            with another kind of index (rows without the field were made per question).
    """
    if not path.is_file():
        return set()
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    others = readers_in(rows) - {reader}
    if others:
        names = ", ".join(sorted(str(r) for r in others))
        raise UserError(f"{path} holds labels of other readers ({names}); pass another --out")
    kinds = {row.get("index", "question") for row in rows}
    if index is not None and kinds - {index}:
        raise UserError(
            f"{path} holds labels made with a per-{'/'.join(sorted(kinds))} index, not a "
            f"per-{index} one; pass another --out"
        )
    return {row["id"] for row in rows}


def _quiet_ingest(jsonl: Path, home: Path, collection: str) -> None:
    from stores.ingest import ingest

    ingest([jsonl], home=home, collection=collection, progress=False)


def run_to_file(
    questions: Sequence[Question],
    runner: StrategyRunner | Callable[[], StrategyRunner],
    path: Path,
    *,
    config: LabelConfig,
    pool: Sequence[Question] = (),
    limit: int | None = None,
    ingest: IngestFn | None = None,
) -> int:
    """Label the questions not yet in `path`, appending one JSON line each; return how many.

    Args:
        questions: The questions to label, in order.
        runner: A strategy runner, or a factory called only when there is work left.
        path: The label file (appended to; its labelled ids are skipped).
        config: Reader, index cache and distractor settings.
        pool: Questions whose passages may serve as distractors (default: `questions`).
        limit: Label at most this many new questions in this call.
        ingest: Index builder (tests pass a fake); the stores' ingestion by default.
    """
    done = labelled_ids(
        path, reader=config.reader, index="question" if config.index_passages else "dataset"
    )
    todo = [q for q in questions if q.id not in done][:limit]
    logger.info("%d questions to label into %s, %d already there", len(todo), path, len(done))
    if not todo:
        return 0
    active = runner() if callable(runner) else runner
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with path.open("a", encoding="utf-8") as handle:
        for question in tqdm(todo, desc="silver labels", unit="question"):
            corpus = (
                question_corpus(
                    question, pool or questions, passages=config.index_passages, seed=config.seed
                )
                if config.index_passages
                else dataset_corpus(question, pool or questions)
            )
            home = prepare_home(corpus, config.index_root, ingest=ingest or _quiet_ingest)
            try:
                row = label_question(
                    question,
                    active,
                    home=home,
                    reader=config.reader,
                    every_route=config.every_route,
                )
            except Exception as error:  # noqa: BLE001 - one bad question must not stop a long run
                logger.warning("%s not labelled (retried on the next run): %s", question.id, error)
                continue
            row["index"] = "question" if config.index_passages else "dataset"
            row["index_passages"] = len(corpus.local)
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            handle.flush()
            written += 1
    return written
