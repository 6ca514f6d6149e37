"""Token answers: gating, candidates from strips, the chosen token checked against its strip."""

from pathlib import Path
from typing import Any

import pytest

import nodes._token_answer as token_answer
from graphs.state import Strip
from nodes._token_answer import answer_with_token, asked_kind, token_candidates

HELP = (Path(__file__).parents[1] / "stores" / "data" / "grep-help.txt").read_text()


def _strip(text: str, score: float = 0.5, name: str = "a") -> Strip:
    return Strip(
        hash=name,
        passage_hash=name,
        order=0,
        text=text,
        title="grep --help > Output control",
        source="grep-help.txt",
        position=0,
        url=None,
        origin="local",
        score=score,
        kept=True,
    )


OUTPUT = _strip(
    "-L, --files-without-match  print only names of FILEs with no selected lines\n"
    "-l, --files-with-matches  print only names of FILEs with selected lines\n"
    "-c, --count               print only a count of selected lines per FILE"
)


def _choose(monkeypatch: pytest.MonkeyPatch, pick: str) -> list[list[str]]:
    asked: list[list[str]] = []

    def fake(model: Any, prompt: str, key: str, options: list[str]) -> dict[str, float]:
        asked.append(options)
        return {o: float(o == pick) for o in options}

    monkeypatch.setattr(token_answer, "ask_choice", fake)
    return asked


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which grep option lists only the files that match?", "option"),
        ("How do I make grep ignore case?", "option"),
        ("Which environment variable sets the colours?", "key"),
        ("What is the default compression level?", "value"),
        ("Who won the 1998 World Cup?", None),
        ("When was the Eiffel Tower finished?", None),
    ],
)
def test_asked_kind(question: str, kind: str | None) -> None:
    assert asked_kind(question) == kind


def test_option_candidates_come_from_the_strips_best_first() -> None:
    prose = _strip("A well-known tool; see -C, --context=NUM for more.", score=0.9, name="b")
    tokens = [t for t, _ in token_candidates("option", [OUTPUT, prose])]
    assert tokens[:2] == ["-C", "--context=NUM"]
    assert "-l" in tokens and "--files-with-matches" in tokens
    assert "-known" not in tokens and "well-known" not in tokens


def test_candidates_are_capped() -> None:
    assert len(token_candidates("option", [_strip(HELP)])) == 12


def test_chosen_option_is_answered_with_its_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(monkeypatch, "-l")
    answer = answer_with_token(
        None,  # type: ignore[arg-type]
        "Which option prints only the names of files that match?",
        [OUTPUT],
        short=False,
    )
    assert answer is not None
    assert answer.text == "Use `-l` (`--files-with-matches`)."
    assert answer.strip is OUTPUT and "-l" in answer.strip["text"]
    assert "none of these" in asked[0]


def test_short_style_answers_the_bare_token(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "--count")
    answer = answer_with_token(None, "Which flag counts matching lines?", [OUTPUT], short=True)  # type: ignore[arg-type]
    assert answer is not None and answer.text == "--count"


def test_none_of_these_leaves_the_question_to_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "none of these")
    assert answer_with_token(None, "Which option colours output?", [OUTPUT], short=False) is None  # type: ignore[arg-type]


def test_no_token_question_never_asks_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(monkeypatch, "-l")
    assert answer_with_token(None, "Who wrote grep?", [OUTPUT], short=False) is None  # type: ignore[arg-type]
    prose = _strip("Paris is the capital of France.")
    assert answer_with_token(None, "Which option is best?", [prose], short=False) is None  # type: ignore[arg-type]
    assert asked == []


def test_default_value_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "3")
    strip = _strip("FROB_LEVEL\n    the default level when -l is not given (default 3)")
    answer = answer_with_token(None, "What is the default frob level?", [strip], short=False)  # type: ignore[arg-type]
    assert answer is not None and answer.text == "The default is `3`."


def test_short_style_drops_the_option_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "--after-context=NUM")
    strip = _strip("-A, --after-context=NUM  print NUM lines of trailing context")
    answer = answer_with_token(None, "How do I show lines after each hit?", [strip], short=True)  # type: ignore[arg-type]
    assert answer is not None and answer.text == "--after-context"
