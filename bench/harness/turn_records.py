"""The multi-turn set's records (one JSON line per turn) and their table; rewrite records.

The table reports, per corpus and overall: rewrites judged correct, first-turn Acc, Acc on
follow-up turns, and Acc on the same follow-ups' expected standalone questions asked alone.
"""

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = [
    "REWRITES_FILE",
    "RewriteRecord",
    "TurnRecord",
    "append_records",
    "latest_plays",
    "read_records",
    "report_table",
    "rewrite_scores",
]

REWRITES_FILE = "rewrites.jsonl"


@dataclass(frozen=True)
class RewriteRecord:
    """One follow-up's rewrite and its verdict."""

    conversation: str
    split: str
    kind: str
    turn: str
    expected: str
    rewrite: str
    made: str
    referent: str
    ok: bool
    """`turn_rewrite_ok`: what the turn lacks brought back, nothing else borrowed."""
    lenient: bool = False
    """The first set's check (`rewrite_correct`): what the turn lacks brought back."""
    signature: str = ""
    problem: str = ""
    """Why the model's rewrite was not used ("" when it was, or none was asked for)."""
    seconds: float = 0.0
    """Wall-clock seconds the rewriter took for this follow-up."""


@dataclass
class TurnRecord:
    """One turn of a conversation: the rewrite, the answer, and the standalone answer."""

    conversation: str
    corpus: str
    index: int
    turn: str
    expected: str
    answers: list[str]
    standalone: str = ""
    rewrite_ok: bool | None = None
    """The rewrite check's verdict (None on first turns, which need no rewrite)."""
    prediction: str = ""
    acc: float = 0.0
    solo_prediction: str = ""
    """The answer to the expected standalone question asked in a fresh thread."""
    solo_acc: float = 0.0
    seconds: float = 0.0
    signature: str = ""
    error: str | None = None
    kind: str = ""
    """The follow-up's kind in the threads set (`switch`, `person`, ...), "" in the first."""
    split: str = ""


def read_records(path: Path) -> list[TurnRecord]:
    """Read a records file (empty when missing)."""
    if not path.is_file():
        return []
    known = set(TurnRecord.__dataclass_fields__)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [TurnRecord(**{k: v for k, v in row.items() if k in known}) for row in rows]


def append_records(path: Path, records: Sequence[TurnRecord]) -> None:
    """Append one conversation's records and make them durable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in records)
        out.flush()
        os.fsync(out.fileno())


def latest_plays(records: Sequence[TurnRecord], signature: str) -> dict[str, list[TurnRecord]]:
    """Return each conversation's last complete, error-free play under `signature`."""
    plays: dict[str, list[TurnRecord]] = {}
    for record in records:
        if record.signature == signature:
            if record.index == 0:
                plays[record.conversation] = []
            plays.setdefault(record.conversation, []).append(record)
    return {k: v for k, v in plays.items() if v and all(r.error is None for r in v)}


def _pct(values: Sequence[float]) -> str:
    return f"{100 * sum(values) / len(values):.1f}" if values else "-"


def _row(name: str, records: "Sequence[TurnRecord]") -> str:
    follow = [r for r in records if r.index > 0]
    acc, solo = _pct([r.acc for r in follow]), _pct([r.solo_acc for r in follow])
    gap = f"{float(solo) - float(acc):+.1f}" if follow else "-"
    leaning = [float(bool(r.rewrite_ok)) for r in follow if r.kind != "switch"]
    switches = [float(bool(r.rewrite_ok)) for r in follow if r.kind == "switch"]
    return (
        f"| {name} | {len({r.conversation for r in records})} | {len(follow)} | "
        f"{_pct(leaning)} | {_pct(switches)} | "
        f"{_pct([r.acc for r in records if r.index == 0])} | {acc} | {solo} | {gap} |"
    )


def report_table(records: "Sequence[TurnRecord]") -> str:
    """Return the Markdown table: per corpus and overall, rewrites and Acc (in %).

    Both Acc columns are over follow-up turns (every turn after the first); rewrite correct
    is over the follow-ups that lean on the conversation, switches left alone over the topic
    switches; the last column is standalone Acc minus follow-up Acc, in points.
    """
    lines = [
        "| corpus | conversations | follow-ups | rewrite correct | switches left alone | "
        "first-turn Acc | follow-up Acc | same asked standalone | standalone - follow-up |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for corpus in sorted({r.corpus for r in records}):
        lines.append(_row(corpus, [r for r in records if r.corpus == corpus]))
    lines.append(_row("all", records))
    return "\n".join(lines)


def rewrite_scores(path: Path) -> dict[tuple[str, str], float]:
    """Return 1.0 or 0.0 per follow-up (conversation, turn) of a rewrites.jsonl, for pairing.

    A rerun under another signature in the same file replaces the earlier record.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    return {(r.conversation, r.turn): float(r.ok) for r in map(_record, lines)}


def _record(line: str) -> RewriteRecord:
    return RewriteRecord(**json.loads(line))
