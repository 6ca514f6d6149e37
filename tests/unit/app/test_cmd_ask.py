import argparse
import io

import pytest

from app import cmd_ask
from graphs.event_examples import EXAMPLE_EVENTS

DRAFT = "The lighthouse was finished in 1885."


class Screen(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def ask(monkeypatch, tmp_path, *, tty: bool) -> tuple[str, list[bool]]:
    """Run `acrag ask` over a scripted run: a draft in two tokens, then a revised answer."""
    asked_tokens = []

    def scripted(args, question, context, *, tokens=False):
        asked_tokens.append(tokens)
        yield dict(EXAMPLE_EVENTS["route"])
        if tokens:
            yield {"type": "token", "text": DRAFT[:10]}
            yield {"type": "token", "text": DRAFT[10:]}
        yield {**EXAMPLE_EVENTS["answer"], "revised": True}

    screen = Screen(tty)
    monkeypatch.setattr(cmd_ask, "_events", scripted)
    monkeypatch.setattr("sys.stdout", screen)
    args = argparse.Namespace(
        question="When was it completed?",
        model="qwen2.5-coder-0.5b",
        route="auto",
        web_backend="none",
        classifier="heuristic",
        evaluator="heuristic",
        reflect=True,
        home=str(tmp_path),
        json=False,
        thread=None,
    )
    assert cmd_ask.run(args) == 0
    return screen.getvalue(), asked_tokens


def test_without_a_terminal_the_answer_is_held_and_printed_once(monkeypatch, tmp_path):
    out, tokens = ask(monkeypatch, tmp_path, tty=False)
    answer = EXAMPLE_EVENTS["answer"]["answer"]
    assert tokens == [False] and DRAFT not in out
    assert out.count(answer) == 1 and "revised" not in out


def test_on_a_terminal_the_draft_is_erased_before_the_answer(monkeypatch, tmp_path):
    out, tokens = ask(monkeypatch, tmp_path, tty=True)
    answer = EXAMPLE_EVENTS["answer"]["answer"]
    assert tokens == [True]
    drafted, erased = out.index(DRAFT), out.index("\r\033[K\033[1A\033[K")
    assert drafted < erased < out.index(answer)
    assert out.count(answer) == 1 and "revised" not in out


@pytest.mark.parametrize(("draft", "rows"), [("short", 2), ("x" * 200, 4), ("a\nb", 3)])
def test_erasing_counts_the_rows_a_draft_wrapped_onto(monkeypatch, draft, rows):
    screen = Screen(True)
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.setattr(
        "shutil.get_terminal_size", lambda: __import__("os").terminal_size((80, 24))
    )
    shown = cmd_ask.Draft()
    shown.write(draft)
    shown.erase()
    assert screen.getvalue().count("\033[1A") == rows - 1
