"""`acrag ask QUESTION`: run the graph over the local index; stream the steps, then the answer."""

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, cast

from langchain_core.runnables import RunnableConfig

from graphs.context import Context
from graphs.validation import validate_question
from models.chat import parse_spec

__all__ = ["add_parser", "describe", "run"]


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `ask` subcommand."""
    parser = subparsers.add_parser("ask", help="answer a question over the ingested documents")
    parser.add_argument("question", help="the question to answer")
    parser.add_argument("--model", default="local", help="chat model spec (default: local)")
    parser.add_argument(
        "--route", choices=["A", "B", "C"], help="force a route instead of classifying"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON event per line")
    parser.add_argument(
        "--web",
        dest="web_backend",
        default="auto",
        choices=["auto", "tavily", "local", "none"],
        help="web search backend",
    )
    parser.add_argument("--classifier", default="trained", choices=["trained", "llm", "heuristic"])
    parser.add_argument("--evaluator", default="trained", choices=["trained", "llm", "heuristic"])
    parser.add_argument(
        "--no-reflect",
        dest="reflect",
        action="store_false",
        help="skip Self-RAG critique and retries",
    )
    parser.add_argument("--thread", help="continue a conversation thread (stored in the home)")
    parser.set_defaults(handler=run)


def _scores(event: dict[str, Any]) -> str:
    return ", ".join(f"{s['score']:+.2f}" for s in event["scores"]) or "nothing to grade"


def describe(event: dict[str, Any]) -> str | None:
    """Return one readable trace line for an event (None for the answer, printed apart)."""
    match event["type"]:
        case "question":
            same = event["standalone"] == event["question"]
            return None if same else f"follow-up read as: {event['standalone']}"
        case "route":
            probability = event["probabilities"].get(event["route"])
            p = f" (p={probability:.2f})" if probability is not None else ""
            return f"route {event['route']}{p}: {event['reason']}"
        case "retrieval":
            return f"retrieved {event['new']} new passage(s) for: {event['query']}"
        case "grades":
            return f"graded: {_scores(event)}"
        case "crag_action":
            return (
                f"CRAG {event['action']}: {event['above_upper']} of {event['graded']} at or "
                f"above {event['upper']}"
            )
        case "strips":
            return f"strips: kept {event['kept']}, dropped {event['dropped']}"
        case "rewrite":
            return f"rewrote query for {event['purpose']}: {event['query']}"
        case "web_results":
            note = f" ({event['degraded']})" if event.get("degraded") else ""
            return f"web search [{event['backend']}]: {len(event['results'])} paragraph(s){note}"
        case "ircot_step":
            return f"IRCoT step {event['step']}: {event['sentence'] or '(no sentence)'}"
        case "critique":
            best = event["candidates"][0] if event["candidates"] else None
            if best is None:
                return "critique: no candidates"
            return (
                f"critique: {len(event['candidates'])} candidate(s), best score "
                f"{best['score']:.2f}, support {best['support']}"
            )
        case "retry":
            return f"retry {event['attempt']}: {event['action']} ({event['why']})"
        case "cap_reached":
            return f"cap reached: {event['cap']} = {event['limit']}"
        case "fallback":
            return f"{event['judge']} failed ({event['problem']}); used {event['used']}"
    return None


def _events(args: argparse.Namespace, question: str, context: Context) -> Iterator[dict[str, Any]]:
    from graphs.graph import build_graph

    with ExitStack() as stack:
        config: RunnableConfig = {}
        checkpointer = None
        if args.thread:
            from stores.checkpoint import open_checkpointer

            checkpointer = stack.enter_context(open_checkpointer(home=_home(args))).saver
            config = {"configurable": {"thread_id": args.thread}}
        graph = build_graph(checkpointer=checkpointer)
        stream = graph.stream(
            {"question": question},
            config=config,
            context=context,
            stream_mode="custom",
            subgraphs=True,
        )
        for _namespace, event in stream:
            yield cast(dict[str, Any], event)


def _home(args: argparse.Namespace) -> Any:
    from stores.home import acrag_home

    return acrag_home(args.home)


def run(args: argparse.Namespace) -> int:
    """Answer the question, printing the trace and the answer (or JSON lines)."""
    parse_spec(args.model)  # a bad spec fails here, before anything loads
    context = Context(
        generator_model=args.model,
        rewriter_model=args.model,
        judge_model=args.model,
        route=args.route or "auto",
        web_backend=args.web_backend,
        classifier=args.classifier,
        evaluator=args.evaluator,
        reflect=args.reflect,
        home=str(_home(args)),
    )
    question = validate_question(args.question, max_chars=context.max_question_chars)
    for event in _events(args, question, context):
        if args.json:
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
        elif event["type"] == "answer":
            sys.stdout.write("\n" + event["answer"] + "\n")
        elif (line := describe(event)) is not None:
            sys.stdout.write(f"· {line}\n")
        sys.stdout.flush()
    return 0
