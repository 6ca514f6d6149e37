"""`acrag ask QUESTION`: run the graph over the local index; stream the steps, then the answer."""

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, cast

from graphs.context import Context
from models.defaults import DEFAULT_MODEL, HELPER_MODEL, role_models

# Heavy modules (LangChain, LangGraph, the models) load inside `run`, after the first line is
# printed, so `acrag ask` answers at once and `acrag --help` stays fast (`graphs.context` is
# light: its choices feed the flags).
if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from app.render import describe

__all__ = ["add_parser", "describe", "run"]


def __getattr__(name: str) -> Any:
    """Load `describe` from the shared renderer only when someone asks for it."""
    if name == "describe":
        from app.render import describe

        return describe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `ask` subcommand."""
    parser = subparsers.add_parser("ask", help="answer a question over the ingested documents")
    parser.add_argument("question", help="the question to answer")
    parser.add_argument(
        "--model",
        default=DEFAULT_MODEL,
        help=f"chat model spec (default: {DEFAULT_MODEL}, with {HELPER_MODEL} as keyword "
        "rewriter and judge; any other spec serves every role), e.g. smollm2 "
        "(faster, weaker) or openai:gpt-4o-mini",
    )
    parser.add_argument(
        "--route",
        default="auto",
        choices=Context.choices("route"),
        help="force a route instead of classifying (default: auto)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON event per line instead of the trace"
    )
    parser.add_argument(
        "--web",
        dest="web_backend",
        default="auto",
        choices=Context.choices("web_backend"),
        help="web search backend; auto uses Tavily when TAVILY_API_KEY is set, else the "
        "offline local web corpus (default: auto)",
    )
    parser.add_argument(
        "--classifier",
        default="trained",
        choices=Context.choices("classifier"),
        help="route classifier: the trained model, the chat model, or keyword rules "
        "(default: trained)",
    )
    parser.add_argument(
        "--evaluator",
        default="trained",
        choices=Context.choices("evaluator"),
        help="CRAG retrieval evaluator: the trained model, the chat model, or word overlap "
        "(default: trained)",
    )
    parser.add_argument(
        "--no-reflect",
        dest="reflect",
        action="store_false",
        help="skip Self-RAG critique and retries",
    )
    parser.add_argument("--thread", help="continue a conversation thread (stored in the home)")
    # The handler closes the graph's stores before it returns: skip the slow interpreter teardown.
    parser.set_defaults(handler=run, fast_exit=True)


def _events(
    args: argparse.Namespace, question: str, context: Context, *, tokens: bool = False
) -> Iterator[dict[str, Any]]:
    """Yield the run's events; with `tokens`, the answer's draft tokens too (type "token")."""
    from langchain_core.messages import AIMessageChunk

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
            stream_mode=["custom", "messages"] if tokens else ["custom"],
            subgraphs=True,
        )
        for _namespace, mode, chunk in stream:
            if mode == "custom":
                yield cast(dict[str, Any], chunk)
            elif isinstance(chunk[0], AIMessageChunk) and chunk[0].text:
                yield {"type": "token", "text": chunk[0].text}


def _home(args: argparse.Namespace) -> Any:
    from stores.home import acrag_home

    return acrag_home(args.home)


def run(args: argparse.Namespace) -> int:
    """Answer the question, printing the trace and the answer (or JSON lines)."""
    sys.stderr.write("loading models ...\n")
    sys.stderr.flush()
    from app.render import render
    from models.chat import parse_spec

    model = args.model
    parse_spec(model)  # a bad spec fails here, before anything loads
    context = Context.from_settings(
        {
            **role_models(model),
            "route": args.route,
            "web_backend": args.web_backend,
            "classifier": args.classifier,
            "evaluator": args.evaluator,
            "reflect": args.reflect,
            "home": str(_home(args)),
        }
    )
    live = not args.json and sys.stdout.isatty()
    draft = Draft()
    for event in _events(args, args.question, context, tokens=live):
        if args.json:
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
        elif event["type"] == "token":
            draft.write(event["text"])
        elif event["type"] == "answer":
            draft.erase()
            sys.stdout.write("\n" + (render(event) or "") + "\n")
        elif (line := render(event)) is not None:
            draft.erase()  # a retry after the draft: the trace goes on below the kept lines
            sys.stdout.write(f"· {line}\n")
        sys.stdout.flush()
    return 0


class Draft:
    """The answer's draft as it streams to a terminal, erased once reflection decides.

    The terminal shows the answer once: the final answer (with its citations) replaces the
    draft, revised or not. When stdout is not a terminal no draft is written at all: the
    answer is held until reflection decides.
    """

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        """Show more of the draft."""
        if not self.text:
            sys.stdout.write("\n")
        self.text += text
        sys.stdout.write(text)

    def erase(self) -> None:
        """Remove the draft from the screen (the rows it wrapped onto included)."""
        if not self.text:
            return
        import shutil

        width = max(1, shutil.get_terminal_size().columns)
        rows = sum(max(1, -(-len(line) // width)) for line in self.text.split("\n")) + 1
        sys.stdout.write("\r\033[K" + "\033[1A\033[K" * (rows - 1))
        self.text = ""
