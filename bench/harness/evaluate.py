"""The benchmark loop: corpus, index, every (question, strategy, drop share), results, reports.

The loop goes question by question, running every strategy on a question before the next and
taking the datasets in turn, so a partial run already supports the oracle and the comparison
on every dataset. Each result is appended to
`records.jsonl` at once; a rerun skips what is done and retries what failed.

Time is measured fairly: by default every LLM call starts cold (llama.cpp does not reuse the
previous prompt's KV cache, which would favour a strategy that follows one sending a similar
prompt), and the strategies run in an order shuffled per question, seeded by its id.
"""

import hashlib
import json
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from bench.harness.corpus import IngestFn, build_corpus, prepare_home, read_extra
from bench.harness.data import Question, load_questions
from bench.harness.judge_artifacts import judge_fingerprints
from bench.harness.metrics import score_prediction
from bench.harness.oracle import oracle_records
from bench.harness.records import Record, append_record, read_records, write_records
from bench.harness.runner import Runner
from bench.harness.strategies import ORACLE
from models.defaults import DEFAULT_MODEL

__all__ = [
    "ORACLE_FILE",
    "RECORDS_FILE",
    "EvalConfig",
    "RunningMeans",
    "TIMING_SETTINGS",
    "collect",
    "run_eval",
    "run_order",
    "round_robin",
    "run_signature",
    "runner_settings",
    "strategies_in",
]

logger = logging.getLogger(__name__)

RECORDS_FILE = "records.jsonl"
ORACLE_FILE = "oracle.jsonl"
TIMING_SETTINGS = frozenset({"prompt_cache"})
"""Settings that change how long a run takes, never what it answers: not in the signature."""


@dataclass
class EvalConfig:
    """One benchmark run."""

    data: list[Path]
    strategies: list[str]
    out: Path
    index_root: Path
    """Where the per-corpus index homes are cached."""
    model: str = DEFAULT_MODEL
    limit: int | None = None
    extra_corpus: list[Path] = field(default_factory=list)
    drop_gold: list[float] = field(default_factory=lambda: [0.0])
    seed: int = 0
    warm_up: bool = True
    settings: dict[str, Any] = field(default_factory=dict)
    """The graph settings the runner uses (part of the run signature, `TIMING_SETTINGS` aside)."""
    cold_start: bool = True
    """Give every LLM call a cold start (no KV-cache reuse); changes time, not answers. It
    reaches a runner built with `runner_settings(config)`, as `acrag eval` builds it."""
    interleave: bool = True
    """Run each question's strategies in an order shuffled by its id, not the listed order."""


def runner_settings(config: EvalConfig) -> dict[str, Any]:
    """Return the graph settings a runner uses: the config's, with cold start applied.

    An explicit `prompt_cache` setting wins over `cold_start`.
    """
    return {"prompt_cache": not config.cold_start, **config.settings}


def run_signature(config: EvalConfig, home: Path, strategy: str | None = None) -> str:
    """Return the hash naming what makes results comparable: model, settings, index, judges.

    Cold start and the other `TIMING_SETTINGS` are left out: they change seconds, not answers,
    so records made with and without them answer for the same configuration. A `strategy`
    that runs on trained judges adds their artifacts' fingerprints, so retraining one redoes
    only the strategies it shapes (a strategy without trained judges keeps the plain hash).
    """
    settings = {k: v for k, v in config.settings.items() if k not in TIMING_SETTINGS}
    parts: list[Any] = [config.model, settings, home.name]
    judges = judge_fingerprints(strategy, config.settings) if strategy else {}
    if judges:
        parts.append(judges)
    payload = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def round_robin(questions: Sequence[Question]) -> list[Question]:
    """Return the questions taking one of each dataset in turn (datasets in first-seen order).

    A run stopped part-way then holds about as many questions of every dataset, so its
    comparisons already span them all.
    """
    groups: dict[str, list[Question]] = {}
    for question in questions:
        groups.setdefault(question.dataset, []).append(question)
    longest = max((len(g) for g in groups.values()), default=0)
    return [g[i] for i in range(longest) for g in groups.values() if i < len(g)]


def run_order(question: Question, strategies: Sequence[str]) -> list[str]:
    """Return `strategies` shuffled for one question, the same every time for that question.

    So no strategy always runs right after the same other one (whose work could leave caches
    warm for it), while a rerun keeps the order.
    """
    order = list(strategies)
    random.Random(f"{question.dataset}/{question.id}").shuffle(order)
    return order


class RunningMeans:
    """Running averages of the scores and time, for the progress bar."""

    def __init__(self) -> None:
        self.n = 0
        self.totals = {"EM": 0.0, "F1": 0.0, "Acc": 0.0, "s/q": 0.0}

    def add(self, record: Record) -> dict[str, str]:
        """Add one record and return the averages formatted for tqdm's postfix."""
        self.n += 1
        for name, value in zip(
            self.totals, (record.em, record.f1, record.acc, record.seconds), strict=True
        ):
            self.totals[name] += value
        return {name: f"{total / self.n:.3f}" for name, total in self.totals.items()}


def _record(
    question: Question, strategy: str, share: float, runner: Runner, home: Path, config: EvalConfig
) -> Record:
    """Run one question and score it; a failure becomes a record with its error."""
    base: dict[str, Any] = {
        "dataset": question.dataset,
        "id": question.id,
        "strategy": strategy,
        "question": question.question,
        "answers": list(question.answers),
        "drop_gold": share,
        "model": config.model,
        "signature": run_signature(config, home, strategy),
    }
    try:
        outcome = runner.run(question.question, strategy, home=home)
    except Exception as error:  # noqa: BLE001 - one bad question must not stop a long run
        logger.warning("%s / %s failed: %s", question.id, strategy, error)
        return Record(
            **base,
            prediction="",
            em=0.0,
            f1=0.0,
            acc=0.0,
            error=f"{type(error).__name__}: {error}"[:500],
        )
    # An abstention answers nothing: its sentence ("I could not find ...") must not match a
    # short gold token such as `-i`.
    scores = score_prediction("" if outcome.abstained else outcome.prediction, question.answers)
    ran = {**asdict(outcome), "seconds": round(outcome.seconds, 4)}
    return Record(**base, **ran, em=scores.em, f1=scores.f1, acc=scores.acc)


def _homes(config: EvalConfig, ingest: IngestFn | None) -> dict[float, Path]:
    """Build (or reuse) the index of every drop share; the corpus uses whole files."""
    every = load_questions(config.data)
    extra = read_extra(config.extra_corpus)
    return {
        share: prepare_home(
            build_corpus(every, extra=extra, drop_share=share, seed=config.seed),
            config.index_root,
            ingest=ingest,
        )
        for share in config.drop_gold
    }


def run_eval(
    config: EvalConfig,
    runner: Runner | Callable[[], Runner],
    *,
    ingest: IngestFn | None = None,
) -> list[Record]:
    """Run every missing (question, strategy, share) and return all records, oracle included.

    Args:
        config: What to run.
        runner: A runner, or a factory called only when there is work left.
        ingest: Index builder (tests pass a fake); the stores' ingestion by default.
    """
    questions = load_questions(config.data, limit=config.limit)
    homes = _homes(config, ingest)
    results = config.out / RECORDS_FILE
    done = {k for k, r in read_records(results).items() if r.error is None}
    runnable = [s for s in config.strategies if s != ORACLE]
    signatures = {
        (share, s): run_signature(config, home, s)
        for share, home in homes.items()
        for s in config.strategies
    }
    todo = [
        (share, q, s)
        for share in config.drop_gold
        for q in round_robin(questions)
        for s in (run_order(q, runnable) if config.interleave else runnable)
        if (q.dataset, q.id, s, round(share, 4), signatures[share, s]) not in done
    ]
    logger.info("%d runs to do, %d already done", len(todo), len(done))
    if todo:
        active = runner() if callable(runner) else runner
        warm = getattr(active, "warm_up", None)
        if config.warm_up and callable(warm):
            warm(home=homes[todo[0][0]])
        means = RunningMeans()
        with tqdm(todo, unit="run", desc="eval") as bar:
            for share, question, strategy in bar:
                record = _record(question, strategy, share, active, homes[share], config)
                append_record(results, record)
                bar.set_postfix(means.add(record), refresh=False)
    return collect(config, questions, signatures)


def collect(
    config: EvalConfig,
    questions: Sequence[Question],
    signatures: dict[tuple[float, str], str],
) -> list[Record]:
    """Return this run's records (questions, strategies, shares, signatures) and the oracle's.

    `signatures` maps (drop share, strategy) to the signature its records must carry.
    """
    wanted = {(q.dataset, q.id) for q in questions}
    records = [
        r
        for r in read_records(config.out / RECORDS_FILE).values()
        if (r.dataset, r.id) in wanted
        and r.strategy in config.strategies
        and signatures.get((r.drop_gold, r.strategy)) == r.signature
    ]
    if ORACLE in config.strategies:
        oracle = oracle_records(records)
        write_records(config.out / ORACLE_FILE, oracle)
        records += oracle
    return records


def strategies_in(records: Sequence[Record]) -> list[str]:
    """Return the strategies present in `records`, in first-seen order."""
    return list(dict.fromkeys(r.strategy for r in records))
