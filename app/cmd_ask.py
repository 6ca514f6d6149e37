"""`acrag ask QUESTION`: answer a question and stream the answer."""

import argparse
import sys

from models.chat import load_chat_model
from models.errors import PromptError

__all__ = ["add_parser"]


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `ask` subcommand."""
    parser = subparsers.add_parser("ask", help="answer a question")
    parser.add_argument("question", help="the question to answer")
    parser.add_argument("--model", default="local", help="chat model spec (default: local)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Stream the model's answer to stdout."""
    question = args.question.strip()
    if not question:
        raise PromptError("the question is empty")
    model = load_chat_model(args.model)
    for chunk in model.stream(question):
        sys.stdout.write(str(chunk.content))
        sys.stdout.flush()
    sys.stdout.write("\n")
    return 0
