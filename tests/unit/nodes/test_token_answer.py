"""Token answers: gating, candidates from strip entries, the chosen token checked in its strip."""

from pathlib import Path
from typing import Any

import pytest

import nodes._token_answer as token_answer
from graphs.state import Strip
from nodes._token_answer import answer_with_token, asked_kind, token_candidates

HELP = (Path(__file__).parents[1] / "stores" / "data" / "grep-help.txt").read_text()
DOCS = Path(__file__).parents[3] / "bench" / "datasets" / "docqa" / "docs"


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
        ("What exit status does sed return on a syntax error?", "value"),
        ("Who won the 1998 World Cup?", None),
        ("When was the Eiffel Tower finished?", None),
        ("Where was the father of Prince Boris Of Leiningen born?", None),  # not a path question
        ("what is the setting of the book hoot", None),  # nor a key one
        ("If two integers are multiplied and output a value, what is this called?", None),
    ],
)
def test_asked_kind(question: str, kind: str | None) -> None:
    assert asked_kind(question) == kind


def test_entry_heads_come_first_then_tokens_prose_mentions() -> None:
    prose = _strip("A well-known tool; see -C, --context=NUM for more.", score=0.9, name="b")
    found = token_candidates("option", [OUTPUT, prose])
    assert [c.token for c in found] == ["-L", "-l", "-c", "-C", "--context=NUM"]
    assert found[1].head == "-l, --files-with-matches"
    assert found[1].description == "print only names of FILEs with selected lines"
    assert found[3].description == "A well-known tool; see -C, --context=NUM for more."


def test_aliases_on_a_head_are_not_offered_twice() -> None:
    tokens = [c.token for c in token_candidates("option", [OUTPUT])]
    assert "--files-with-matches" not in tokens and "--count" not in tokens


def test_keyword_argument_in_example_code() -> None:
    code = _strip("print(json.dumps({'4': 5, '6': 7}, sort_keys=True, indent=4))")
    assert [c.token for c in token_candidates("option", [code])] == ["sort_keys", "indent"]


def test_candidates_are_capped() -> None:
    assert len(token_candidates("option", [_strip(HELP)])) == 20


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
    _choose(monkeypatch, "-c")
    answer = answer_with_token(None, "Which flag counts matching lines?", [OUTPUT], short=True)  # type: ignore[arg-type]
    assert answer is not None and answer.text == "-c" and answer.alias == "--count"


def test_none_of_these_leaves_the_question_to_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "none of these")
    assert answer_with_token(None, "Which option colours output?", [OUTPUT], short=False) is None  # type: ignore[arg-type]


def test_no_token_question_never_asks_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(monkeypatch, "-l")
    assert answer_with_token(None, "Who wrote grep?", [OUTPUT], short=False) is None  # type: ignore[arg-type]
    prose = _strip("Paris is the capital of France.")
    assert answer_with_token(None, "Which option is best?", [prose], short=False) is None  # type: ignore[arg-type]
    assert asked == []


def test_each_choice_is_shown_with_its_own_description(monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[str] = []

    def fake(model: Any, prompt: str, key: str, options: list[str]) -> dict[str, float]:
        prompts.append(prompt)
        return {o: float(o == "-A") for o in options}

    monkeypatch.setattr(token_answer, "ask_choice", fake)
    text = (DOCS / "grep" / "grep-help.txt").read_text()
    context = _strip(text[text.index("Context control:") : text.index("--group-separator")])
    answer = answer_with_token(None, "How do I see 3 lines after each hit?", [context], short=True)  # type: ignore[arg-type]
    assert answer is not None and answer.text == "-A" and answer.alias == "--after-context"
    lines = prompts[0].splitlines()
    assert (
        "- -A (-A, --after-context=NUM) [grep --help > Output control]: print NUM lines of "
        "trailing context" in lines
    )
    assert (
        "- -B (-B, --before-context=NUM) [grep --help > Output control]: print NUM lines of "
        "leading context" in lines
    )


def test_option_with_its_argument_is_answered_bare(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "--pid=PID")
    text = (DOCS / "coreutils" / "tail-help.txt").read_text()
    strip = _strip(text[text.index("      --pid=PID") : text.index("-z, --zero")])
    question = "How do I make tail stop once a process has exited?"
    short = answer_with_token(None, question, [strip], short=True)  # type: ignore[arg-type]
    sentence = answer_with_token(None, question, [strip], short=False)  # type: ignore[arg-type]
    assert short is not None and short.text == "--pid"
    assert sentence is not None and sentence.text == "Use `--pid`."


def test_exit_status_from_a_definition_list(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(monkeypatch, "2")
    text = (DOCS / "sed" / "info-sed-exit-status.txt").read_text()
    strip = _strip(text[text.index("2.3 Exit status") : text.index("   Additionally")])
    question = "What exit status does sed return if an input file can't be opened?"
    answer = answer_with_token(None, question, [strip], short=False)  # type: ignore[arg-type]
    assert asked[0] == ["0", "1", "2", "4", "none of these"]
    assert answer is not None and answer.text == "It is `2`."


def test_a_choice_missing_from_its_strip_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "-l")
    quoted = _strip("-l, --files-with-matches  print only names of FILEs with selected lines")
    moved = token_answer.Choice("-l", "-l", "lists files", _strip("no such option here"))
    monkeypatch.setattr(token_answer, "token_candidates", lambda kind, strips: [moved])
    assert answer_with_token(None, "Which option lists files?", [quoted], short=False) is None  # type: ignore[arg-type]
