"""Rewrite-only scoring of a multi-turn set: the follow-up rewriter alone, no graph.

Each conversation is replayed with the gold answers as the assistant's turns: every
follow-up goes to a `FollowUpRewriter` with the earlier exchanges (their standalone question
being the rewriter's own earlier output, as in a real thread) and its rewrite is judged by
`bench.datasets.conversations.turn_rewrite_ok`. Cheap (one reader call per follow-up at
most), so it is what tuning runs on; the full graph (`bench.multiturn`) measures answers.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bench.datasets.conversations import Conversation, turn_rewrite_ok
from models.followup import Exchange, FollowUpRewriter

__all__ = ["RewriteRecord", "earlier_texts", "rewrite_table", "score_rewrites"]


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
        history = [Exchange(first.turn, first.turn, f"{first.answers[0]}.")]
        for index, turn in enumerate(c.turns[1:], start=1):
            made = rewriter.rewrite(turn.turn, history)
            ok = turn_rewrite_ok(made.question, turn, earlier=earlier_texts(c, index))
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
                )
            )
            history.append(Exchange(turn.turn, made.question, f"{turn.answers[0]}."))
    return records


def rewrite_table(records: Sequence[RewriteRecord]) -> str:
    """Return a Markdown table: rewrites right per follow-up kind, and overall (in %)."""
    lines = ["| follow-up kind | follow-ups | rewrite right |", "|---|---:|---:|"]
    kinds = Counter(r.kind or "(unlabelled)" for r in records)
    for kind in sorted(kinds):
        rows = [r for r in records if (r.kind or "(unlabelled)") == kind]
        lines.append(f"| {kind} | {len(rows)} | {_pct(rows)} |")
    lines.append(f"| all | {len(records)} | {_pct(records)} |")
    return "\n".join(lines)


def _pct(rows: Sequence[RewriteRecord]) -> str:
    return f"{100 * sum(r.ok for r in rows) / len(rows):.1f}" if rows else "-"
