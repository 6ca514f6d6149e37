"""Fixtures for serving tests: servers in subprocesses on free loopback ports, headless Chromium."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def eventually(check: Callable[[], bool], *, seconds: float = 30, every: float = 0.05) -> bool:
    """Poll `check` until it holds (True) or `seconds` have passed (False)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


def wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not up after {timeout}s:\n{log.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)


class Server:
    """One server subprocess (its own process group, so its children stop with it)."""

    def __init__(self, command: list[str], *, home: Path, port: int, log: Path, env=None, cwd=REPO):
        self.url = f"http://127.0.0.1:{port}"
        self.home = home
        self.log = log
        environment = {**os.environ, "ACRAG_HOME": str(home), **(env or {})}
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                cwd=cwd,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_until_up(f"{self.url}/ok", self.process, log)

    def stop(self) -> None:
        stop(self.process)


ServeFn = Callable[..., Server]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServeFn]:
    """Start `acrag serve` (demo graph by default) on a free port; every server stops after."""
    started: list[Server] = []

    def start(*extra: str, home: Path | None = None, port: int | None = None) -> Server:
        port = port or free_port()
        command = [sys.executable, "-m", "app.cli", "serve", "--no-token", "--port", str(port)]
        command += list(extra)
        server = Server(
            command,
            home=home or tmp_path / "home",
            port=port,
            log=tmp_path / f"serve-{len(started)}.log",
        )
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run app/server/system_deps.sh")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.dialogs = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()


def have_postgres() -> str | None:
    """Return the PostgreSQL bin directory, or None."""
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return str(candidate)
    found = shutil.which("initdb")
    return str(Path(found).parent) if found else None
