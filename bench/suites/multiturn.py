"""`python -m bench.suites.multiturn`: play the multi-turn set through the graph and score it.

Each conversation of `bench/datasets/multiturn.jsonl` (schema and the rewrite check in
`bench.datasets.conversations`) is played turn by turn in one checkpointed thread, each turn
sent as `{"messages": [HumanMessage(turn)]}`. The standalone question the graph used (state
`standalone_question`) is judged against the expected one, and every follow-up's expected
standalone question is also asked alone in a fresh thread, so follow-up Acc can be compared
with the same questions asked standalone. Records go to `--out/records.jsonl` one
conversation at a time (a rerun skips finished ones), the table to `--out/results.md`.

`--conversations` picks the first set (`multiturn`), the second (`threads`, written after the
rules, split dev/test: `--split`), the third (`threads2`, written by someone who had not read
the rules, over other kinds of documents, split the same way), the fourth to eighth
(`threads3`, `threads4`, `threads5`, `threads6`, `threads7`, made the same way as the third in
later sessions; `threads4` to `threads7` have on-topic follow-ups the documents do not answer,
right when declined), `both` (the first two) or `all`.
`--rewrites-only` scores the follow-up rewriter alone (`bench.suites.multiturn_rewrites`, no
graph: cheap) into `--out/rewrites.jsonl` and `--out/rewrites.md`; the rewriter kind is the
`follow_ups` setting (`--set follow_ups=rules`) and `--model` its model (`follow_up_model`).
`python -m bench.harness.paired --rewrites A B` compares two such runs on the same follow-ups.
"""

import argparse
import hashlib
import json
import logging
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from bench.datasets.conversations import Conversation, Turn, turn_rewrite_ok
from bench.harness.metrics import score_prediction
from bench.harness.paths import portable_command
from bench.harness.turn_records import (
    TurnRecord,
    append_records,
    latest_plays,
    read_records,
    report_table,
)
from bench.suites.multiturn_rewrites import earlier_texts
from models.defaults import DEFAULT_MODEL

__all__ = [
    "RECORDS_FILE",
    "REPORT_FILE",
    "ask",
    "corpus_home",
    "main",
    "play",
    "run_multiturn",
    "turn_acc",
]

logger = logging.getLogger(__name__)

RECORDS_FILE = "records.jsonl"
REPORT_FILE = "results.md"
RECURSION_LIMIT = 120


class ChatGraph(Protocol):
    """What the runner needs of a compiled graph with a checkpointer."""

    def invoke(self, input: Any, config: Any = None, *, context: Any = None) -> Any:
        """Run one turn and return the final state."""
        ...


def _standalone(state: Mapping[str, Any], sent: str) -> str:
    if state.get("standalone_question"):
        return str(state["standalone_question"])
    shown = [e for e in state.get("events") or [] if e.get("type") == "question"]
    return str(shown[-1].get("standalone") or sent) if shown else sent


def ask(graph: ChatGraph, text: str, *, thread: str, context: Any) -> tuple[str, str, bool]:
    """Send one user turn in `thread`; return the standalone question, answer and abstention."""
    from langchain_core.messages import HumanMessage

    from bench.harness.runner import read_outcome

    config = {"configurable": {"thread_id": thread}, "recursion_limit": RECURSION_LIMIT}
    state = graph.invoke({"messages": [HumanMessage(text)]}, config, context=context)
    outcome = read_outcome(state, [])
    return _standalone(state, text), outcome.prediction, outcome.abstained


def turn_acc(turn: Turn, prediction: str, abstained: bool) -> float:
    """Return one answer's Acc: on an unanswerable turn, declining is right and only that."""
    if turn.unanswerable:
        return float(abstained)
    return score_prediction(prediction, turn.answers).acc


def play(
    graph: ChatGraph, conversation: Conversation, *, context: Any, signature: str
) -> list[TurnRecord]:
    """Play one conversation in a new thread; score each turn and its standalone twin."""
    thread = f"{conversation.id}-{uuid.uuid4().hex[:8]}"
    records = []
    for index, turn in enumerate(conversation.turns):
        started = time.perf_counter()
        record = TurnRecord(
            conversation.id,
            conversation.corpus,
            index,
            turn.turn,
            turn.standalone,
            list(turn.answers),
            signature=signature,
            kind=turn.kind,
            split=conversation.split,
        )
        record.standalone, record.prediction, declined = ask(
            graph, turn.turn, thread=thread, context=context
        )
        record.acc = turn_acc(turn, record.prediction, declined)
        if index == 0:  # the first turn is its own standalone question
            record.solo_prediction, record.solo_acc = record.prediction, record.acc
        else:
            earlier = earlier_texts(conversation, index)
            record.rewrite_ok = turn_rewrite_ok(record.standalone, turn, earlier=earlier)
            solo = f"{thread}-solo{index}"
            _, record.solo_prediction, declined = ask(
                graph, turn.standalone, thread=solo, context=context
            )
            record.solo_acc = turn_acc(turn, record.solo_prediction, declined)
        record.seconds = round(time.perf_counter() - started, 3)
        records.append(record)
    return records


def run_multiturn(
    conversations: Sequence[Conversation],
    *,
    graph: ChatGraph,
    contexts: Mapping[str, Any],
    out: Path,
    signature: str = "",
) -> list[TurnRecord]:
    """Play every conversation not yet done under `signature`; return their latest records.

    Args:
        conversations: What to play.
        graph: A compiled graph with a checkpointer (tests pass a fake).
        contexts: The graph `Context` per corpus name.
        out: The results folder.
        signature: What makes results comparable (model, settings, index); a conversation
            is replayed when its records carry another signature or an error.
    """
    path = out / RECORDS_FILE
    done = latest_plays(read_records(path), signature)
    for conversation in conversations:
        if len(done.get(conversation.id, [])) == len(conversation.turns):
            continue
        try:
            records = play(
                graph, conversation, context=contexts[conversation.corpus], signature=signature
            )
        except Exception as error:  # noqa: BLE001 - one conversation must not stop the run
            logger.warning("%s failed: %s", conversation.id, error)
            first = conversation.turns[0]
            message = f"{type(error).__name__}: {error}"[:500]
            records = [
                TurnRecord(
                    conversation.id,
                    conversation.corpus,
                    0,
                    first.turn,
                    first.standalone,
                    list(first.answers),
                    signature=signature,
                    error=message,
                )
            ]
        append_records(path, records)
        logger.info("%s: %s", conversation.id, [r.acc for r in records])
    latest = latest_plays(read_records(path), signature)
    return [r for c in conversations for r in latest.get(c.id, [])]


def corpus_home(name: str, index_root: Path, *, ingest: Any = None) -> Path:
    """Return the index home of a corpus of the set, building it on first use."""
    from bench.datasets.conversations import CORPORA
    from bench.harness.corpus import Corpus, prepare_home, read_extra

    source = CORPORA[name]
    if source.is_dir():
        corpus = Corpus(local=(), web=(), documents=(source.resolve(),))
    else:
        corpus = Corpus(local=tuple(read_extra([source])), web=())
    return prepare_home(corpus, index_root, ingest=ingest)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.multiturn", description=__doc__)
    parser.add_argument(
        "--data", type=Path, help="a conversations file (default: the shipped sets)"
    )
    parser.add_argument(
        "--conversations",
        choices=[
            "multiturn",
            "threads",
            "threads2",
            "threads3",
            "threads4",
            "threads5",
            "threads6",
            "threads7",
            "both",
            "all",
        ],
        default="both",
        help="which shipped set: the first, the second (threads), the third (threads2), the "
        "fourth (threads3), the fifth (threads4), the sixth (threads5), the seventh (threads6), "
        "the eighth (threads7), the first two (both, the default) or all eight",
    )
    parser.add_argument("--split", choices=["dev", "test"], help="one half of a split set")
    parser.add_argument(
        "--rewrites-only", action="store_true", help="score the follow-up rewriter alone"
    )
    parser.add_argument(
        "--corpus",
        default="all",
        help="sample, usrdoc, threads, threads2, threads3, threads4, threads5, threads6, threads7 "
        "or all (default)",
    )
    parser.add_argument("--limit", type=int, help="conversations to play (default: all)")
    parser.add_argument("--out", type=Path, required=True, help="results folder (resumable)")
    parser.add_argument(
        "--model", default=DEFAULT_MODEL, help=f"chat model spec (default: {DEFAULT_MODEL})"
    )
    parser.add_argument("--strategy", default="single", help="bench strategy (default: single)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        dest="settings",
        metavar="KEY=VALUE",
        help="a graph Context setting",
    )
    parser.add_argument("--home", help="acrag home holding the cached indexes")
    return parser


def _conversations(args: argparse.Namespace) -> list[Conversation]:
    from bench.datasets.conversations import (
        MULTITURN_FILE,
        THREAD_SETS,
        THREADS_FILE,
        load_conversations,
    )

    corpora = None if args.corpus == "all" else [args.corpus]
    shipped = {
        "multiturn": [MULTITURN_FILE],
        **{name: [path] for name, path in THREAD_SETS.items()},
        "both": [MULTITURN_FILE, THREADS_FILE],
        "all": [MULTITURN_FILE, *THREAD_SETS.values()],
    }
    paths = [args.data] if args.data else shipped[args.conversations]
    found = [
        c
        for path in paths
        for c in load_conversations(path, corpora=corpora)
        if args.split is None or c.split in (args.split, "")
    ]
    return found[: args.limit] if args.limit is not None else found


def _signature(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, default=str).encode()).hexdigest()[:12]


def main(argv: Sequence[str] | None = None) -> int:
    """Play the set with the live graph, write records and the table, print the table."""
    from langgraph.checkpoint.memory import InMemorySaver

    from bench.harness.runner import make_context
    from graphs import build_graph
    from graphs.context import parse_settings
    from stores.home import acrag_home

    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    conversations = _conversations(args)
    command = portable_command("python -m bench.suites.multiturn", sys.argv[1:])
    if args.rewrites_only:
        from bench.suites.multiturn_rewrites import report_rewrites

        settings = parse_settings(args.settings)
        signature = _signature(["rewrites", args.model, settings])
        tables = report_rewrites(conversations, args.model, settings, args.out, signature)
        text = f"# Follow-up rewrites\n\n```bash\n{command}\n```\n\n{tables}\n"
        (args.out / "rewrites.md").write_text(text, encoding="utf-8")
        sys.stdout.write(text)
        return 0
    settings = {"web_backend": "none", **parse_settings(args.settings)}
    index_root = acrag_home(args.home) / "bench" / "indexes"
    homes = {c: corpus_home(c, index_root) for c in sorted({c.corpus for c in conversations})}
    contexts = {
        name: make_context(args.strategy, model=args.model, settings=settings, home=home)
        for name, home in homes.items()
    }
    payload = [args.model, args.strategy, settings, sorted(h.name for h in homes.values())]
    graph = build_graph(checkpointer=InMemorySaver())
    records = run_multiturn(
        conversations, graph=graph, contexts=contexts, out=args.out, signature=_signature(payload)
    )
    table = f"# Multi-turn set\n\n```bash\n{command}\n```\n\n{report_table(records)}\n"
    (args.out / REPORT_FILE).write_text(table, encoding="utf-8")
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
