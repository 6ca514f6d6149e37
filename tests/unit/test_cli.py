import argparse
import subprocess
import sys

import pytest

from app.cli import COMMANDS, build_parser, command_in, main

HEAVY = ("langchain_core", "langgraph", "torch", "transformers", "chromadb", "xllamacpp")
LIGHT = {
    "models",
    "models.defaults",
    "models.errors",
    "graphs",
    "graphs.context",
    "graphs.env_defaults",
    "graphs.validation",
}
"""The modules that load nothing heavy: `Context` gives `ask`'s flags their choices, and the
`models` package loads its parts lazily."""


def test_version_works_offline(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("acrag ")


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["ask", "q"], "ask"),
        (["--home", "ask", "ingest", "x"], "ingest"),
        (["-v", "--home=h", "serve"], "serve"),
        (["--help"], None),
        (["nonsense"], None),
    ],
)
def test_only_the_command_being_run_is_imported(argv: list[str], command: str | None) -> None:
    assert command_in(argv) == command


def test_ask_parses_without_loading_heavy_modules() -> None:
    script = (
        "import sys; from app.cli import build_parser; "
        "build_parser('ask').parse_args(['ask', 'q']); "
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r} "
        f"or (m.split('.')[0] in ('models', 'graphs') and m not in {LIGHT!r})])"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _options_without_help(parser: argparse.ArgumentParser, path: str) -> list[str]:
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += _options_without_help(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction) and action.help in (None, ""):
            missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return missing


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help(command: str) -> None:
    assert _options_without_help(build_parser(command), "acrag") == []


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_empty_question_is_one_line_without_traceback(
    question: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", question]) == 2
    err = capsys.readouterr().err
    assert err.startswith("loading models ...\n")  # said at once, before anything loads
    error = err.removeprefix("loading models ...\n")
    assert error.startswith("acrag: error:") and "question" in error
    assert "Traceback" not in err and error.count("\n") == 1


def test_unknown_model_spec_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--model", "nonsense", "hello?"]) == 2
    err = capsys.readouterr().err.removeprefix("loading models ...\n")
    assert "valid forms" in err and err.count("\n") == 1


def test_ask_as_a_program_says_what_loads_and_exits_with_its_status() -> None:
    command = [sys.executable, "-m", "app.cli", "ask", "--model", "nonsense", "hello?"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("loading models ...\nacrag: error:")
