"""PostgreSQL and Redis on loopback, in a private data directory, for `make serve-cluster`.

Debian's binaries (`app/server/system_deps.sh` installs them), started as child processes bound
to 127.0.0.1 on the ports given: no system service, no shared database. PostgreSQL keeps its
data in `<dir>/postgres` (kept across restarts: threads, runs and checkpoints live there);
Redis only carries the run queue's wake-ups, heartbeats and streams, so it keeps nothing on
disk. PostgreSQL refuses to run as root, so as root it runs as `postgres`, and when that user
cannot reach the directory (under a private home) its data goes to
`/var/lib/postgresql/acrag/<hash of the directory>` instead.
Standard library only: it runs under the cluster's own virtualenv and under the test suite's.
"""

import hashlib
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ModelServer", "Postgres", "Redis", "postgres_bindir"]

_USER = "acrag"
_REPO = Path(__file__).resolve().parents[2]


def postgres_bindir() -> Path:
    """Return the directory holding `initdb` and `pg_ctl` (the newest Debian version first).

    Raises:
        RuntimeError: PostgreSQL is not installed.
    """
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    if found := shutil.which("initdb"):
        return Path(found).parent
    raise RuntimeError("PostgreSQL is missing: run `make system-deps` (app/server/system_deps.sh)")


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}): {done.stderr or done.stdout}")


def _reachable_by_others(path: Path) -> bool:
    return all(os.stat(parent).st_mode & 0o001 for parent in path.resolve().parents)


@dataclass
class Postgres:
    """One PostgreSQL server with its data in `root/postgres`, listening on 127.0.0.1:`port`."""

    root: Path
    port: int

    @property
    def data(self) -> Path:
        """The database cluster's directory (also holds its socket and its log)."""
        if os.geteuid() != 0 or _reachable_by_others(self.root):
            return self.root / "postgres"
        digest = hashlib.sha256(str(self.root.resolve()).encode()).hexdigest()[:16]
        return Path("/var/lib/postgresql/acrag") / digest

    @property
    def url(self) -> str:
        """The connection URL the workers use."""
        return f"postgresql://{_USER}@127.0.0.1:{self.port}/postgres"

    def _pg_ctl(self, *args: str) -> list[str]:
        bindir = postgres_bindir()
        log = self.data / "server.log"
        return _as_postgres([str(bindir / "pg_ctl"), "-D", str(self.data), "-l", str(log), *args])

    def start(self) -> None:
        """Create the database cluster on first use, then start the server and wait for it."""
        if os.geteuid() == 0 and self.data.parent != self.root:
            # `/var/lib/postgresql/acrag` is made here: made by `mkdir(parents=True)` under a
            # 077 umask (acrag serve and ingest set one) it would be root's alone, and
            # `postgres` could not reach its own data below it
            self.data.parent.mkdir(parents=True, exist_ok=True)
            shutil.chown(self.data.parent, "postgres", "postgres")
            self.data.parent.chmod(0o700)
        self.data.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.geteuid() == 0:
            shutil.chown(self.data, "postgres", "postgres")
        if not (self.data / "PG_VERSION").exists():
            initdb = [str(postgres_bindir() / "initdb"), "-D", str(self.data), "-A", "trust"]
            _run(_as_postgres([*initdb, "-U", _USER, "-E", "UTF8"]), "initdb")
        options = (
            f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=400"
        )
        _run(self._pg_ctl("-w", "-t", "60", "-o", options, "start"), "starting PostgreSQL")

    def stop(self) -> None:
        """Stop the server (fast shutdown: open transactions roll back, data stays)."""
        if (self.data / "postmaster.pid").exists():
            subprocess.run(self._pg_ctl("-w", "-m", "fast", "stop"), capture_output=True)

    def remove(self) -> None:
        """Delete the data (tests)."""
        shutil.rmtree(self.data, ignore_errors=True)


@dataclass
class Redis:
    """One Redis server on 127.0.0.1:`port`, persisting nothing (PostgreSQL holds the runs)."""

    root: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The connection URL the workers use."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 30) -> None:
        """Start `redis-server` and wait until it accepts connections."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is missing: run `make system-deps`")
        self.root.mkdir(parents=True, exist_ok=True)
        command = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.root)]
        command += ["--save", "", "--appendonly", "no", "--protected-mode", "yes"]
        with (self.root / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: see {self.root / 'redis.log'}")
            if self._ping():
                return
            time.sleep(0.1)
        raise TimeoutError(f"redis-server did not answer on port {self.port} within {timeout}s")

    def _ping(self) -> bool:
        import socket

        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the server."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


@dataclass
class ModelServer:
    """The shared model server (`app.server.llm_server`) on 127.0.0.1:`port`, with a random key.

    `worker_env` is what a worker needs to send every role's requests to it.
    """

    root: Path
    port: int
    model: str = "qwen2.5-coder-1.5b"
    alias: str = "acrag-reader"
    parallel: int = 4
    python: str = sys.executable
    api_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def worker_env(self) -> dict[str, str]:
        """The variables that point every role of a worker's graph at this server."""
        return {
            "ACRAG_LLM_BASE_URL": self.url,
            "ACRAG_MODEL": f"openai:{self.alias}",
            "OPENAI_API_KEY": self.api_key,
        }

    def start(self, timeout: float = 300) -> None:
        """Start the server and wait until its model is loaded (`/health` says ok)."""
        self.root.mkdir(parents=True, exist_ok=True)
        command = [self.python, "-m", "app.server.llm_server", "--model", self.model]
        command += ["--alias", self.alias, "--port", str(self.port)]
        command += ["--parallel", str(self.parallel)]
        env = {**os.environ, "ACRAG_LLM_API_KEY": self.api_key}  # never on the command line
        with (self.root / "model-server.log").open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=_REPO, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = (self.root / "model-server.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the model server exited:\n{tail}")
            if self._healthy():
                return
            time.sleep(0.5)
        raise TimeoutError(f"the model server did not load its model within {timeout}s")

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
                return r.status == 200
        except OSError:  # not listening yet, or 503 while the model loads
            return False

    def metrics(self) -> dict[str, float]:
        """Return the server's counters (`/metrics`), e.g. `llamacpp:prompt_tokens_total`."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/metrics",
            headers={"Authorization": f"Bearer {self.api_key}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            lines = answer.read().decode().splitlines()
        pairs = (line.rsplit(" ", 1) for line in lines if line and not line.startswith("#"))
        return {name: float(value) for name, value in pairs}

    def stop(self) -> None:
        """Stop the server."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
