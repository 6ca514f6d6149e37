"""Issue 36 against a real `acrag serve --demo`: the printed token, private files, heads,
slow bodies, the connection limit, and one-line logs for clients that leave."""

import re
import socket
import stat
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.integration.app.conftest import Server, eventually, free_port

pytestmark = pytest.mark.integration


def _start(tmp_path: Path, *extra: str) -> Server:
    port = free_port()
    command = [sys.executable, "-m", "app.cli", "serve", "--demo", "--port", str(port), *extra]
    return Server(command, home=tmp_path / "home", port=port, log=tmp_path / "serve.log")


def _raw(server: Server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def _closed_within(sock: socket.socket, seconds: float) -> bytes:
    """Read until the server closes the connection; fail if it is still open after `seconds`."""
    sock.settimeout(seconds)
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


def _status_becomes(server: Server, status: int, seconds: float = 30) -> bool:
    """Poll `/ok` until it answers `status` (the server sees sockets come and go a moment late)."""

    def answers() -> bool:
        return httpx.get(f"{server.url}/ok", timeout=30).status_code == status

    return eventually(answers, seconds=seconds, every=0.1)


def test_serve_prints_a_token_link_once_and_requires_it(tmp_path: Path, page) -> None:
    server = _start(tmp_path)
    try:
        (link,) = re.findall(r"http://\S+#token=\S+", server.log.read_text())
        token = link.split("#token=")[1]
        assert httpx.post(f"{server.url}/threads", json={}).status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        assert httpx.post(f"{server.url}/threads", json={}, headers=auth).status_code == 200
        page.goto(link)  # the page takes the token from the link, then drops it from the URL
        page.wait_for_selector("body[data-ready=true]")
        assert "#token" not in page.url
        assert page.locator("#token-form").is_hidden()
        page.fill("#question", "What is the capital of France?")
        page.click("#ask")
        page.locator(".turn[data-done=true]").first.wait_for(timeout=120_000)
        assert "Paris" in page.locator(".answer-text").inner_text()
    finally:
        server.stop()
    home = tmp_path / "home"
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    written = [p for p in home.rglob("*") if p.is_file()]
    assert written and all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in written)


@pytest.fixture
def limited(tmp_path: Path):
    server = _start(
        tmp_path,
        "--no-token",
        "--header-timeout", "2",
        "--body-timeout", "2",
        "--max-connections", "6",
        "--max-header-kb", "16",
    )  # fmt: skip
    yield server
    server.stop()


def test_a_huge_header_is_refused_and_the_server_carries_on(limited: Server) -> None:
    """Each client reads the refusal: the server drops the rest of the head instead of closing
    at once, which would reset a connection whose client is still sending (issue 36)."""
    for _ in range(10):
        response = httpx.get(f"{limited.url}/ok", headers={"X-Big": "a" * 64 * 1024})
        assert response.status_code in (400, 431)
    assert httpx.get(f"{limited.url}/ok").status_code == 200


def test_a_trickled_head_is_cut_off(limited: Server) -> None:
    with _raw(limited) as sock:
        sock.sendall(b"GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finishes its head
        started = time.monotonic()
        assert _closed_within(sock, 30) == b""
        assert time.monotonic() - started < 20


def test_a_slow_body_gets_408(limited: Server) -> None:
    head = b"POST /threads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    with _raw(limited) as sock:
        sock.sendall(head + b"Content-Length: 100\r\n\r\n{")  # 99 bytes never come
        assert b" 408 " in _closed_within(sock, 30).split(b"\r\n")[0] + b" "


def test_connections_over_the_limit_get_503(limited: Server) -> None:
    idle = [_raw(limited) for _ in range(6)]
    try:
        assert _status_becomes(limited, 503)
    finally:
        for sock in idle:
            sock.close()
    assert _status_becomes(limited, 200)


def test_a_client_leaving_mid_upload_is_one_log_line(limited: Server) -> None:
    boundary = b"acragtest"
    head = (
        b"POST /acrag/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
        b"Content-Type: multipart/form-data; boundary=" + boundary + b"\r\n\r\n"
    )
    part = b"--" + boundary + b'\r\nContent-Disposition: form-data; name="files"; '
    part += b'filename="a.txt"\r\n\r\n' + b"x" * 1000
    with _raw(limited) as sock:
        sock.sendall(head + part)
        time.sleep(0.5)
    time.sleep(1.0)
    assert httpx.get(f"{limited.url}/ok").status_code == 200
    log = limited.log.read_text()
    assert "Traceback" not in log, log[-3000:]
