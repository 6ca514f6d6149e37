"""`make serve-cluster`: PostgreSQL, Redis and N stock LangGraph API servers on one machine.

Each worker is the stock `langgraph-api` server (`uvicorn langgraph_api.server:app`) with the
MIT Postgres + Redis runtime (`LANGGRAPH_RUNTIME_EDITION=pg`, package `langgraph-runtime-pg`),
serving the graphs and the mounted page app of `langgraph.json` unchanged. Every worker is both
an API server and a queue worker: a run is a row in PostgreSQL that any worker claims
(`FOR UPDATE SKIP LOCKED`, never while another run of its thread is running), its events go
through Redis so any worker can stream them, and a worker that dies stops refreshing its
runs' Redis heartbeat, so after about two heartbeats a living worker puts them back in the
queue (up to `BG_JOB_MAX_RETRIES`, then marks them failed) and frees the thread. Separate
processes on separate ports stand in for separate machines.

Run with the cluster's own virtualenv (`.venv-cluster`, built by `make cluster-setup`: it pins
`langgraph-api==0.11.1`, older than the one `langgraph dev` brings to `.venv`). Standard
library only, so the test suite can drive it from `.venv` too.
"""

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.server.cluster_services import ModelServer, Postgres, Redis

__all__ = ["Cluster", "free_port", "main", "made_token", "worker_environment"]

REPO = Path(__file__).resolve().parents[2]
HEARTBEAT_S = 5
"""Run heartbeat (`LG_BG_JOB_HEARTBEAT`): a dead worker's runs are re-queued after ~2-4x this."""
TOKEN_ENV = "ACRAG_SERVE_TOKEN"
"""The bearer token every worker requires (`app/server/asgi.py` reads it)."""
RUN_TIMEOUT_S = 300
"""A run's time limit (`BG_JOB_TIMEOUT_SECS`; the stock default is a day): `acrag serve`'s."""


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def worker_environment(
    config: dict[str, Any], *, database: str, redis: str, jobs: int, heartbeat: float
) -> dict[str, str]:
    """Return the variables that make `langgraph_api.server:app` serve `config` on pg + Redis.

    `config` is a parsed `langgraph.json`: its `graphs`, `http`, `auth`, `store` and `env` are
    handed over the way `langgraph dev` hands them over (`LANGSERVE_GRAPHS`, `LANGGRAPH_HTTP`).
    """
    variables = {"BG_JOB_TIMEOUT_SECS": str(RUN_TIMEOUT_S)}
    variables |= {str(k): str(v) for k, v in (config.get("env") or {}).items()}
    variables |= {
        "LANGGRAPH_RUNTIME_EDITION": "pg",
        "DATABASE_URI": database,
        "REDIS_URI": redis,
        "N_JOBS_PER_WORKER": str(jobs),
        "LG_BG_JOB_HEARTBEAT": str(heartbeat),
        "LG_RUNTIME_PG_AUTO_MIGRATE": "false",  # the launcher migrates once, before any worker
        "LANGSERVE_GRAPHS": json.dumps(config["graphs"]),
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
    }
    for key, name in (("http", "LANGGRAPH_HTTP"), ("auth", "LANGGRAPH_AUTH")):
        if config.get(key):
            variables[name] = json.dumps(config[key])
    if config.get("store"):
        variables["LANGGRAPH_STORE"] = json.dumps(config["store"])
    return variables


@dataclass
class Cluster:
    """PostgreSQL, Redis and `workers` API/queue processes; a context manager."""

    root: Path
    workers: int = 2
    python: str = sys.executable
    config: Path = REPO / "langgraph.json"
    ports: list[int] = field(default_factory=list)
    jobs_per_worker: int = 4
    heartbeat: float = HEARTBEAT_S
    extra_env: dict[str, str] = field(default_factory=dict)
    model_server: ModelServer | None = None
    """A model server shared by the workers: every role of their graphs goes to it."""
    processes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ports = self.ports or [free_port() for _ in range(self.workers)]
        self.postgres = Postgres(self.root, free_port())
        self.redis = Redis(self.root / "redis", free_port())
        self.logs = self.root / "logs"

    @property
    def urls(self) -> list[str]:
        """Each worker's base URL."""
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def __enter__(self) -> "Cluster":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout: float = 180) -> None:
        """Start the databases, migrate once, start worker 0, then the others together."""
        self.logs.mkdir(parents=True, exist_ok=True)
        self.postgres.start()
        self.redis.start()
        if self.model_server is not None:
            self.model_server.start()
        self._migrate()
        self.start_worker(0, timeout=timeout)
        for index in range(1, self.workers):
            self.start_worker(index, wait=False)
        for index in range(1, self.workers):
            self.wait_ready(index, timeout)

    def _environment(self) -> dict[str, str]:
        config = json.loads(self.config.read_text())
        variables = worker_environment(
            config,
            database=self.postgres.url,
            redis=self.redis.url,
            jobs=self.jobs_per_worker,
            heartbeat=self.heartbeat,
        )
        shared_model = self.model_server.worker_env if self.model_server else {}
        return {**os.environ, **variables, **shared_model, **self.extra_env}

    def _migrate(self) -> None:
        command = [self.python, "-m", "langgraph_runtime_pg.migrate", "upgrade"]
        done = subprocess.run(
            command, env=self._environment(), capture_output=True, text=True, cwd=REPO
        )
        if done.returncode != 0:
            raise RuntimeError(f"migration failed: {done.stderr or done.stdout}")

    def start_worker(self, index: int, *, wait: bool = True, timeout: float = 180) -> None:
        """Start (or restart) worker `index` on its port."""
        command = [
            self.python,
            "-m",
            "uvicorn",
            "app.server.cluster_asgi:app",
            "--host",
            "127.0.0.1",
        ]
        command += ["--port", str(self.ports[index]), "--no-access-log", "--lifespan", "on"]
        with (self.logs / f"worker-{index}.log").open("ab") as log:
            self.processes[index] = subprocess.Popen(
                command,
                cwd=REPO,
                env=self._environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if wait:
            self.wait_ready(index, timeout)

    def wait_ready(self, index: int, timeout: float = 180) -> None:
        """Wait until worker `index` answers `/ok`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.processes[index].poll() is not None:
                tail = (self.logs / f"worker-{index}.log").read_text()[-3000:]
                raise RuntimeError(f"worker {index} exited:\n{tail}")
            try:
                with urllib.request.urlopen(f"{self.urls[index]}/ok", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise TimeoutError(f"worker {index} not ready after {timeout}s")

    def kill_worker(self, index: int, sig: int = signal.SIGKILL) -> None:
        """Send `sig` to worker `index`'s whole process group and reap it."""
        process = self.processes[index]
        if process.poll() is None:
            os.killpg(process.pid, sig)
            process.wait(30)

    def stop(self) -> None:
        """Stop every worker (SIGTERM, then SIGKILL), Redis and PostgreSQL."""
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for index, process in self.processes.items():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill_worker(index)
        if self.model_server is not None:
            self.model_server.stop()
        self.redis.stop()
        self.postgres.stop()


def made_token(environ: Mapping[str, str], *, no_token: bool) -> str | None:
    """Return a random token for the workers, unless one is set or `--no-token` was given."""
    if environ.get(TOKEN_ENV) or no_token:
        return None  # the workers read a set token from the environment themselves
    return secrets.token_urlsafe(24)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app.server.cluster", description=__doc__)
    parser.add_argument("--workers", type=int, default=2, help="API/queue processes (default 2)")
    parser.add_argument("--port", type=int, default=8200, help="first worker's port (default 8200)")
    parser.add_argument(
        "--jobs", type=int, default=4, help="concurrent runs per worker (default 4)"
    )
    parser.add_argument("--config", type=Path, default=REPO / "langgraph.json")
    parser.add_argument(
        "--no-token",
        action="store_true",
        help=f"serve without a token when ${TOKEN_ENV} is unset (default: a random one)",
    )
    parser.add_argument(
        "--llm-server",
        action="store_true",
        help="start one model server (app.server.llm_server) that every worker's graph uses",
    )
    parser.add_argument("--llm-model", default="qwen2.5-coder-1.5b", help="its local model spec")
    parser.add_argument("--llm-port", type=int, default=8300, help="its port (default 8300)")
    parser.add_argument("--llm-parallel", type=int, default=4, help="requests it decodes at once")
    parser.add_argument(
        "--dir", type=Path, help="data directory (default: $ACRAG_HOME/cluster, kept across starts)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Start the cluster in the foreground until Ctrl-C."""
    args = _parser().parse_args(argv)
    from stores.home import acrag_home

    root = (args.dir or acrag_home() / "cluster").resolve()
    ports = [args.port + i for i in range(args.workers)]
    cluster = Cluster(
        root, args.workers, config=args.config, ports=ports, jobs_per_worker=args.jobs
    )
    token = made_token(os.environ, no_token=args.no_token)
    if token:
        cluster.extra_env[TOKEN_ENV] = token
    link = f"#token={token}" if token else ""  # a fragment never reaches the server or its logs
    if args.llm_server:
        cluster.model_server = ModelServer(
            root / "model", args.llm_port, model=args.llm_model, parallel=args.llm_parallel
        )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with cluster:
        lines = [f"  worker {i}: {url}/ui/{link}" for i, url in enumerate(cluster.urls)]
        if cluster.model_server is not None:
            lines.append(f"  model server: {cluster.model_server.url} ({args.llm_model})")
        sys.stderr.write("\n".join(["cluster up:", *lines, f"  data: {root}", "Ctrl-C stops."]))
        sys.stderr.write("\n")
        try:
            while all(p.poll() is None for p in cluster.processes.values()):
                time.sleep(1)
            sys.stderr.write("a worker exited: stopping the cluster\n")
            return 1
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    sys.exit(main())
