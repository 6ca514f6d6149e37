"""The `acrag serve` command line."""

from app.cli import build_parser
from app.cmd_serve import DEFAULT_PORT, _is_loopback


def test_serve_binds_loopback_by_default(monkeypatch):
    monkeypatch.delenv("ACRAG_SERVE_TOKEN", raising=False)
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.token, args.demo) == ("127.0.0.1", DEFAULT_PORT, None, False)
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9", "--token", "t"])
    assert (args.host, args.port, args.token) == ("0.0.0.0", 9, "t")


def test_loopback_detection():
    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("localhost")
    assert not _is_loopback("0.0.0.0") and not _is_loopback("example.org")
