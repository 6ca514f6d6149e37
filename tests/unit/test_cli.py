import pytest

from app.cli import main


def test_version_works_offline(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("acrag ")


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "ask" in capsys.readouterr().out


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_empty_question_is_one_line_without_traceback(
    question: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", question]) == 2
    err = capsys.readouterr().err
    assert err.startswith("acrag: error:") and "empty" in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_unknown_model_spec_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--model", "nonsense", "hello?"]) == 2
    err = capsys.readouterr().err
    assert "valid forms" in err and err.count("\n") == 1
