"""The `acrag serve` command line: binding, the token's sources, and a busy port."""

import socket
from argparse import Namespace
from pathlib import Path

import pytest

from app.cli import build_parser, main
from app.cmd_serve import (
    DEFAULT_PORT,
    TOKEN_ENV,
    _announce,
    _is_loopback,
    bind,
    choose_token,
    read_token,
)
from models.errors import UserError


def test_serve_binds_loopback_by_default(monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.demo) == ("127.0.0.1", DEFAULT_PORT, False)
    assert read_token(args) is None
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9"])
    assert (args.host, args.port) == ("0.0.0.0", 9)


def test_loopback_detection():
    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("localhost")
    assert not _is_loopback("0.0.0.0") and not _is_loopback("example.org")


def test_the_token_comes_from_the_environment_or_a_file_never_argv(monkeypatch, tmp_path: Path):
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert read_token(build_parser().parse_args(["serve"])) == "from-env"
    secret = tmp_path / "token"
    secret.write_text("from-file\n")
    args = build_parser().parse_args(["serve", "--token-file", str(secret)])
    assert read_token(args) == "from-file"
    with pytest.raises(UserError, match="visible|ps"):
        read_token(build_parser().parse_args(["serve", "--token", "t"]))
    (tmp_path / "empty").write_text("")
    with pytest.raises(UserError, match="empty"):
        read_token(build_parser().parse_args(["serve", "--token-file", str(tmp_path / "empty")]))


def test_the_banner_never_prints_a_token_it_was_given(capsys):
    args = Namespace(host="127.0.0.1", port=8123)
    _announce(args, "s3cret-token", False, "sqlite:///x")
    out = capsys.readouterr().out
    assert "s3cret-token" not in out and "http://127.0.0.1:8123/ui/" in out


def test_without_a_token_serve_makes_one_and_prints_the_page_link_once(monkeypatch, capsys):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    token, made = choose_token(build_parser().parse_args(["serve"]))
    other, _ = choose_token(build_parser().parse_args(["serve"]))
    assert made and token and len(token) >= 32 and token != other
    _announce(Namespace(host="127.0.0.1", port=8123), token, made, "sqlite:///x")
    out = capsys.readouterr().out
    assert out.count(token) == 1 and f"http://127.0.0.1:8123/ui/#token={token}" in out


def test_no_token_serves_open_and_a_set_token_wins(monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert choose_token(build_parser().parse_args(["serve", "--no-token"])) == (None, False)
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert choose_token(build_parser().parse_args(["serve", "--no-token"])) == ("from-env", False)


def test_a_busy_port_is_one_clear_error_before_any_url_is_printed(tmp_path: Path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(UserError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind("127.0.0.1", port)
        status = main(["--home", str(tmp_path), "serve", "--demo", "--port", str(port)])
    captured = capsys.readouterr()
    assert status == 2 and "http://" not in captured.out
    assert captured.err.count("\n") == 1 and "choose another --port" in captured.err
