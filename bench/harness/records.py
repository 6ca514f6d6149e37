"""Per-question results: an append-only JSON-lines file that a killed run resumes from.

Every finished question is appended and flushed at once, so a kill loses at most the question
in flight. On resume, the last record per (dataset, id, strategy, drop share, signature) wins;
records that ended in an error are run again.
"""

import json
import logging
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

__all__ = [
    "Outcome",
    "Record",
    "RecordKey",
    "append_record",
    "read_records",
    "read_run",
    "write_records",
]

logger = logging.getLogger(__name__)

RecordKey = tuple[str, str, str, float, str]
"""(dataset, question id, strategy, share of gold dropped, run signature)."""


@dataclass(kw_only=True)
class Outcome:
    """What one graph run answered and what it cost."""

    prediction: str
    route: str | None = None
    crag_action: str | None = None
    abstained: bool = False
    """The graph said the documents do not hold the answer."""
    best_score: float | None = None
    """The evaluator's best score on the first graded retrieval (what CRAG's action reads)."""
    logprob: float | None = None
    """The chosen answer's mean token log-probability (the reader's confidence), if reported."""
    candidates: list[dict[str, Any]] = field(default_factory=list)
    """Every candidate the reader wrote, ranked as `reflect` left them (the first is the
    answer): its text and mean token log-probability, for candidate agreement."""
    llm_calls: int = 0
    retrieval_calls: int = 0
    """Local retrievals plus web searches: the "steps" of Adaptive-RAG's Table 1."""
    web_searches: int = 0
    prompt_tokens: int = 0
    generated_tokens: int = 0
    cache_hits: int = 0
    """LLM calls answered from the response cache (their time is not a model's time)."""
    seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    """Seconds per stage (`bench.harness.stages.STAGES`), summing to `seconds`; empty when
    untimed."""
    cold_start: bool = False
    """Every local LLM call started without the previous prompt's KV cache (fair timing)."""


@dataclass(kw_only=True)
class Record(Outcome):
    """The outcome of one question under one strategy, scored."""

    dataset: str
    id: str
    strategy: str
    question: str
    answers: list[str]
    em: float
    f1: float
    acc: float
    drop_gold: float = 0.0
    model: str = ""
    error: str | None = None
    oracle_of: str | None = None
    """For `adaptive-oracle` records: the strategy whose result was taken."""
    signature: str = ""
    """Hash of the model, the settings and the indexed corpus: results of another
    configuration in the same folder are never mistaken for this one's."""

    @property
    def key(self) -> RecordKey:
        """Return the identity of this record inside a results file."""
        return self.dataset, self.id, self.strategy, round(self.drop_gold, 4), self.signature

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Record":
        """Build a record from JSON, ignoring fields this version does not know."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as data:
        data.seek(-1, os.SEEK_END)
        return data.read(1) == b"\n"


def append_record(path: Path, record: Record) -> None:
    """Append one record and make it durable before returning."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torn = path.is_file() and path.stat().st_size > 0 and not _ends_with_newline(path)
    with path.open("a", encoding="utf-8") as out:
        out.write("\n" if torn else "")  # a kill mid-write left half a line: close it off
        out.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
        out.flush()
        os.fsync(out.fileno())


def read_records(path: Path) -> dict[RecordKey, Record]:
    """Read a results file: the last record per key, skipping a torn last line.

    The records come in the order of their last write, so the latest runs come last.
    """
    found: dict[RecordKey, Record] = {}
    if not path.is_file():
        return found
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = Record.from_dict(json.loads(line))
            except (json.JSONDecodeError, TypeError) as error:
                logger.warning("%s:%d: unreadable record skipped (%s)", path, number, error)
                continue
            found.pop(record.key, None)  # so the order is that of each key's last write
            found[record.key] = record
    return found


def read_run(run: Path) -> list[Record]:
    """Return a run's records, given its folder or its `records.jsonl` (for report commands).

    Raises:
        SystemExit: Nothing is there, with a message that says what to give.
    """
    path = run / "records.jsonl" if run.is_dir() else run
    if not path.is_file():
        raise SystemExit(f"no records at {path}: give a run's folder or its records.jsonl")
    return list(read_records(path).values())


def write_records(path: Path, records: Iterable[Record]) -> None:
    """Write `records` to `path`, replacing it (for derived results such as the oracle)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
    tmp.replace(path)
