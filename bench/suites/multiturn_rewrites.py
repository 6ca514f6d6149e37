"""Rewrite-only scoring of a multi-turn set: the follow-up rewriter alone, no graph.

Each conversation is replayed with the gold answers as the assistant's turns: every
follow-up goes to a `FollowUpRewriter` with the earlier exchanges (their standalone question
being the rewriter's own earlier output, as in a real thread) and its rewrite is judged by
`bench.datasets.conversations.turn_rewrite_ok`. Cheap (one reader call per follow-up at
most), so it is what tuning runs on; the full graph (`bench.suites.multiturn`) measures answers.
"""

import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from bench.datasets.conversations import Conversation, Turn, rewrite_correct, turn_rewrite_ok
from bench.harness.turn_records import REWRITES_FILE, RewriteRecord, rewrite_scores
from models.followup import Exchange, FollowUpRewriter

__all__ = [
    "REWRITES_FILE",
    "RewriteRecord",
    "earlier_texts",
    "reply",
    "report_rewrites",
    "rewrite_scores",
    "rewrite_table",
    "run_rewrites",
    "score_rewrites",
]


def reply(turn: Turn) -> str:
    """Return the assistant's reply taken for a turn: its first answer.

    An unanswerable turn's is "", as the graph keeps for a turn it declined (nothing named).
    """
    return f"{turn.answers[0]}." if turn.answers else ""


def earlier_texts(conversation: Conversation, index: int) -> list[str]:
    """Return what the turns before `index` said: questions typed and meant, gold answers."""
    before = conversation.turns[:index]
    return [text for t in before for text in (t.turn, t.standalone, *t.answers)]


def score_rewrites(
    conversations: Sequence[Conversation], rewriter: FollowUpRewriter
) -> list[RewriteRecord]:
    """Rewrite every follow-up of `conversations` and judge it."""
    records = []
    for c in conversations:
        first = c.turns[0]
        history = [Exchange(first.turn, first.turn, reply(first))]
        for index, turn in enumerate(c.turns[1:], start=1):
            start = time.perf_counter()
            made = rewriter.rewrite(turn.turn, history)
            seconds = round(time.perf_counter() - start, 2)
            ok = turn_rewrite_ok(made.question, turn, earlier=earlier_texts(c, index))
            lenient = rewrite_correct(made.question, expected=turn.standalone, turn=turn.turn)
            records.append(
                RewriteRecord(
                    c.id,
                    c.split,
                    turn.kind,
                    turn.turn,
                    turn.standalone,
                    made.question,
                    made.made,
                    made.referent,
                    ok,
                    lenient,
                    problem=made.problem,
                    seconds=seconds,
                )
            )
            history.append(Exchange(turn.turn, made.question, reply(turn)))
    return records


def run_rewrites(
    conversations: Sequence[Conversation],
    rewriter: FollowUpRewriter,
    *,
    out: Path,
    signature: str,
) -> list[RewriteRecord]:
    """Score every conversation not yet scored under `signature`; return all their records.

    Records are appended to `out/rewrites.jsonl` one conversation at a time (resumable).
    """
    path = out / REWRITES_FILE
    done: dict[str, list[RewriteRecord]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            record = RewriteRecord(**json.loads(line))
            if record.signature == signature:
                done.setdefault(record.conversation, []).append(record)
    out.mkdir(parents=True, exist_ok=True)
    for c in conversations:
        if len(done.get(c.id, [])) == len(c.turns) - 1:
            continue
        fresh = [
            RewriteRecord(**{**asdict(r), "signature": signature})
            for r in score_rewrites([c], rewriter)
        ]
        with path.open("a", encoding="utf-8") as sink:
            sink.writelines(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in fresh)
        done[c.id] = fresh
    return [r for c in conversations for r in done[c.id][: len(c.turns) - 1]]


def report_rewrites(
    conversations: Sequence[Conversation],
    model: str,
    settings: dict[str, object],
    out: Path,
    signature: str,
) -> str:
    """Score the rewriter the settings choose (`follow_ups`); return one table per corpus."""
    from graphs.context import Context
    from graphs.deps import Deps

    context = Context(**{"follow_up_model": model, **settings})  # type: ignore[arg-type]
    rewriter = Deps().follow_ups_for(context)
    records = run_rewrites(conversations, rewriter, out=out, signature=signature)
    tables = []
    for corpus in sorted({c.corpus for c in conversations}):
        ids = {c.id for c in conversations if c.corpus == corpus}
        rows = [r for r in records if r.conversation in ids]
        tables.append(f"### {corpus}\n\n{rewrite_table(rows)}")
    return "\n\n".join(tables)


def rewrite_table(records: Sequence[RewriteRecord]) -> str:
    """Return a Markdown table: rewrites right per follow-up kind, and overall (in %).

    "right" is `turn_rewrite_ok` (for a switch: left alone); "first set's check" is the
    lenient `rewrite_correct` the first set was reported with.
    """
    lines = [
        "| follow-up kind | follow-ups | rewrite right | first set's check |",
        "|---|---:|---:|---:|",
    ]
    kinds = Counter(r.kind or "(unlabelled)" for r in records)
    for kind in sorted(kinds):
        rows = [r for r in records if (r.kind or "(unlabelled)") == kind]
        lines.append(f"| {kind} | {len(rows)} | {_pct(rows)} | {_pct(rows, lenient=True)} |")
    leaning = [r for r in records if r.kind != "switch"]
    lines.append(f"| all but switches | {len(leaning)} | {_pct(leaning)} | - |")
    lines.append(f"| all | {len(records)} | {_pct(records)} | {_pct(records, lenient=True)} |")
    return "\n".join(lines)


def _pct(rows: Sequence[RewriteRecord], *, lenient: bool = False) -> str:
    if not rows:
        return "-"
    right = sum(r.lenient if lenient else r.ok for r in rows)
    return f"{100 * right / len(rows):.1f}"
