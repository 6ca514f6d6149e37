"""Load: N concurrent threads, each asking M questions in one conversation, against `acrag serve`.

Starts `acrag serve` on a free loopback port with a fresh data directory (the sample corpus
indexed for the real graph), then every worker thread opens its own conversation and asks its
questions in turn over the SSE run endpoint. Checks: no HTTP or run error, and no state leaking
between conversations (each thread's stored messages are exactly its own questions and one
answer per question). Reports p50/p95/max run latency and throughput.

Usage:
    .venv/bin/python -m bench.suites.load [--threads 8] [--questions 20] [--demo]
"""

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

__all__ = [
    "LoadAverage",
    "LoadReport",
    "free_port",
    "index_sample",
    "main",
    "run_load",
    "start_server",
    "thread_questions",
]

REPO = Path(__file__).resolve().parents[2]
TOPICS = [
    "Where's Waldo",
    "the Eiffel Tower",
    "Paris",
    "the Seine",
    "water",
    "Mount Etna",
    "France",
    "the Louvre",
]


@dataclass
class LoadReport:
    """What a load run measured."""

    threads: int
    questions: int
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    wall: float = 0.0

    def summary(self) -> dict[str, Any]:
        """Return counts, p50/p95/max latency (seconds) and runs per minute."""
        ordered = sorted(self.latencies) or [0.0]
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return {
            "threads": self.threads,
            "questions_per_thread": self.questions,
            "runs": len(self.latencies),
            "errors": len(self.errors),
            "leaks": len(self.leaks),
            "p50_s": round(statistics.median(ordered), 2),
            "p95_s": round(p95, 2),
            "max_s": round(ordered[-1], 2),
            "wall_s": round(self.wall, 1),
            "runs_per_min": round(60 * len(self.latencies) / self.wall, 1) if self.wall else 0.0,
        }


class LoadAverage(threading.Thread):
    """Sample the machine's 1-minute load average every `every` seconds while it runs."""

    def __init__(self, every: float = 5.0):
        super().__init__(daemon=True)
        self.every, self.samples = every, [os.getloadavg()[0]]
        self._done = threading.Event()

    def run(self) -> None:
        """Sample until `stop`."""
        while not self._done.wait(self.every):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> dict[str, float]:
        """Stop sampling; return the lowest and highest load average seen."""
        self._done.set()
        self.samples.append(os.getloadavg()[0])
        return {"load_min": round(min(self.samples), 1), "load_max": round(max(self.samples), 1)}


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    home: Path,
    *,
    demo: bool,
    log: Path,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start `acrag serve` in its own process group; return it and its URL once `/ok` answers.

    `env`: variables added to this process's environment (e.g. `ACRAG_MODEL`).
    """
    port = port or free_port()
    command = [sys.executable, "-m", "app.cli", "serve", "--no-token", "--port", str(port)]
    with log.open("ab") as out:
        server = subprocess.Popen(
            [*command, *(["--demo"] if demo else [])],
            cwd=REPO,
            env={**os.environ, **(env or {}), "ACRAG_HOME": str(home)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                return server, url
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not start within 120 s")


def thread_questions(worker: int, count: int) -> list[str]:
    """Return worker `worker`'s questions, each tagged so a leak names its owner."""
    return [
        f"[t{worker}q{i}] What do you know about {TOPICS[(worker + i) % len(TOPICS)]}?"
        for i in range(count)
    ]


def _ask(client: httpx.Client, thread_id: str, question: str) -> tuple[float, str | None]:
    body = {
        "assistant_id": "acrag",
        "input": {"question": question, "messages": [{"type": "human", "content": question}]},
        "stream_mode": ["updates", "custom", "messages-tuple"],
    }
    start = time.perf_counter()
    problem = None
    with client.stream("POST", f"/threads/{thread_id}/runs/stream", json=body) as response:
        if response.status_code != 200:
            problem = f"HTTP {response.status_code}"
        for line in response.iter_lines():
            if line == "event: error":
                problem = "error event"
            elif problem == "error event" and line.startswith("data: "):
                problem = f"error event: {line[6:300]}"
    return time.perf_counter() - start, problem


def _check_state(client: httpx.Client, thread_id: str, questions: Sequence[str]) -> list[str]:
    values = client.get(f"/threads/{thread_id}/state").json()["values"]
    messages = values.get("messages") or []
    humans = [m["content"] for m in messages if m["type"] == "human"]
    answers = [m for m in messages if m["type"] == "ai"]
    problems = []
    if humans != list(questions):
        problems.append(f"{thread_id}: human messages {humans!r} != its questions")
    if len(answers) != len(questions):
        problems.append(f"{thread_id}: {len(answers)} answers for {len(questions)} questions")
    text = json.dumps(messages)
    own = {q.split("]")[0] for q in questions}
    foreign = {tag for tag in _tags(text) if tag not in own}
    if foreign:
        problems.append(f"{thread_id}: messages mention other threads' questions {foreign}")
    return problems


def _tags(text: str) -> set[str]:
    return {f"[{m}" for m in re.findall(r"\[(t\d+q\d+)\]", text)}


def _worker(url: str, worker: int, count: int, report: LoadReport) -> None:
    questions = thread_questions(worker, count)
    with httpx.Client(base_url=url, timeout=600) as client:
        try:
            thread_id = client.post("/threads", json={"metadata": {"worker": worker}}).json()[
                "thread_id"
            ]
            for question in questions:
                seconds, problem = _ask(client, thread_id, question)
                report.latencies.append(seconds)
                if problem:
                    report.errors.append(f"t{worker}: {question}: {problem}")
            report.leaks.extend(_check_state(client, thread_id, questions))
        except (httpx.HTTPError, KeyError, ValueError) as error:
            report.errors.append(f"t{worker}: {type(error).__name__}: {error}")


def run_load(url: str, *, threads: int, questions: int) -> LoadReport:
    """Run `threads` conversations of `questions` questions at once against `url`."""
    report = LoadReport(threads=threads, questions=questions)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(_worker, url, i, questions, report) for i in range(threads)]:
            future.result()
    report.wall = time.perf_counter() - start
    return report


def index_sample(home: Path) -> None:
    """Index the sample corpus (local documents and the offline web pages) into `home`."""
    from stores.ingest import ingest  # Chroma loads only when needed
    from stores.web import LOCAL_WEB_COLLECTION

    sample = REPO / "app" / "sample_corpus"
    ingest([sample / "local"], home=home, progress=False)
    ingest([sample / "web"], home=home, collection=LOCAL_WEB_COLLECTION, progress=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load test and print its summary as JSON; exit 1 on any error or leak."""
    parser = argparse.ArgumentParser(prog="python -m bench.suites.load", description=__doc__)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--demo", action="store_true", help="the model-free demo graph")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="acrag-load-") as tmp:
        home = Path(tmp) / "home"
        if not args.demo:
            index_sample(home)
        server, url = start_server(home, demo=args.demo, log=Path(tmp) / "serve.log")
        try:
            report = run_load(url, threads=args.threads, questions=args.questions)
        finally:
            server.terminate()
            server.wait(30)
    for problem in [*report.errors, *report.leaks][:20]:
        sys.stderr.write(problem + "\n")
    sys.stdout.write(json.dumps(report.summary()) + "\n")
    return 1 if report.errors or report.leaks else 0


if __name__ == "__main__":
    raise SystemExit(main())
