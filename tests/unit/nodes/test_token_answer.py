"""Token answers: the gate, candidates from strip entries, answers checked against them."""

from pathlib import Path
from typing import Any

import pytest

import nodes._token_answer as token_answer
from graphs.state import Strip
from nodes._token_answer import asked_kind, check_answer, token_candidates

HELP = (Path(__file__).parents[1] / "stores" / "data" / "grep-help.txt").read_text()
DOCS = Path(__file__).parents[3] / "bench" / "datasets" / "docqa" / "docs"


def _section(relative: str, start: str, end: str) -> str:
    text = (DOCS / relative).read_text()
    begin = text.index(start)
    return text[begin : text.index(end, begin)]


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


def _check(question: str, answer: str, strips: list[Strip], *, short: bool = True) -> str | None:
    checked = check_answer(None, question, answer, strips, short=short)  # type: ignore[arg-type]
    return None if checked is None else checked.text


def test_an_answer_naming_a_listed_option_becomes_that_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = _choose(monkeypatch, "-c")
    question = "Which option prints only the names of files that match?"
    assert _check(question, "-l, --files-with-matches", [OUTPUT]) == "-l"
    assert _check(question, "--files-with-matches", [OUTPUT], short=False) == (
        "Use `-l` (`--files-with-matches`)."
    )
    assert asked == []  # naming a candidate needs no model call


def test_an_option_written_with_its_argument_is_answered_bare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = _choose(monkeypatch, "-s")
    strip = _strip(_section("coreutils/tail-help.txt", "      --pid=PID", "-z, --zero"))
    question = "How do I make tail stop once a process has exited?"
    assert _check(question, "--pid=PID", [strip]) == "--pid"
    assert _check(question, "--pid=PID", [strip], short=False) == "Use `--pid`."
    assert asked == []


def test_a_heading_answer_is_replaced_by_the_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(
        monkeypatch,
        "--hash=sha256:" + "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    )
    strip = _strip(
        _section(
            "python3-pip/topics/repeatable-installs.md", "## Hash-checking", "Hash-checking mode is"
        )
    )
    question = "How do I pin a package to a known hash in a requirements file?"
    assert _check(question, "Hash-checking mode", [strip]) == "--hash"
    assert "none of these" in asked[0]


def test_a_bare_word_answer_matches_the_option_it_spells() -> None:
    strip = _strip("--indent, --tab, --no-indent, --compact\n    Mutually exclusive options")
    assert (
        _check("How do I indent json.tool output with a switch?", "indent", [strip]) == "--indent"
    )


def test_a_sed_flag_is_named_only_as_the_whole_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(monkeypatch, "none of these")
    strip = _strip(_section("sed/info-sed-the-s-command.txt", "‘g’\n", "‘NUMBER’"))
    question = "How do I make a sed substitution replace every match on a line?"
    assert _check(question, "g", [strip]) == "g"
    assert _check(question, "use it, e.g. twice", [strip]) is None  # no `e`: the model said none
    assert len(asked) == 1


def test_an_exit_status_from_a_definition_list() -> None:
    strip = _strip(_section("sed/info-sed-exit-status.txt", "2.3 Exit status", "   Additionally"))
    question = "What exit status does sed return if an input file can't be opened?"
    assert _check(question, "2", [strip], short=False) == "It is `2`."


def test_the_reader_answer_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _choose(monkeypatch, "-l")
    question = "Which option prints only the names of files that match?"
    assert _check(question, "NOT FOUND", [OUTPUT]) is None  # an abstention
    assert _check(question, "-z", [OUTPUT]) is None  # a token the entries do not list
    assert _check("Who wrote grep?", "Mike Haertel", [OUTPUT]) is None  # no token question
    assert _check(question, "-l", [_strip("Paris is the capital of France.")]) is None
    assert asked == []


def test_a_choice_missing_from_its_strip_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _choose(monkeypatch, "-l")
    moved = token_answer.Choice("-l", "-l", "lists files", _strip("no such option here"))
    monkeypatch.setattr(token_answer, "token_candidates", lambda kind, strips: [moved])
    assert _check("Which option lists files?", "the listing mode", [OUTPUT]) is None


def test_each_choice_is_shown_with_its_own_description(monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[str] = []

    def fake(model: Any, prompt: str, key: str, options: list[str]) -> dict[str, float]:
        prompts.append(prompt)
        return {o: float(o == "-A") for o in options}

    monkeypatch.setattr(token_answer, "ask_choice", fake)
    context = _strip(_section("grep/grep-help.txt", "Context control:", "--group-separator"))
    assert _check("How do I see 3 lines after each hit?", "Context control", [context]) == "-A"
    lines = prompts[0].splitlines()
    own = "print NUM lines of trailing context"
    assert f"- -A (-A, --after-context=NUM) [grep --help > Output control]: {own}" in lines
    assert (
        "- -B (-B, --before-context=NUM) [grep --help > Output control]: print NUM lines "
        "of leading context" in lines
    )
