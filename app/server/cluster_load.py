"""Load on the cluster: concurrent conversations over stock LangGraph API workers.

The client side of `python -m app.server.cluster_bench`: conversations spread round-robin over
the workers, each asking its questions in turn through `langgraph-sdk`'s `runs.stream`, the
way the chat page does. A turn whose worker goes away is picked up on another worker: its run
is joined there (`runs.join_stream`) if it had started, else sent again. Every conversation's
stored messages are checked: exactly its own questions, in order, one answer each.
"""

import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from langgraph_sdk.schema import StreamMode

from app.server.cluster import REPO
from bench.suites.load import LoadReport, thread_questions

__all__ = [
    "CLUSTER_PYTHON",
    "Turn",
    "ask",
    "connect",
    "demo_config",
    "on_any",
    "run_load",
    "thread_problems",
    "warm",
]

CLUSTER_PYTHON = REPO / ".venv-cluster" / "bin" / "python"
STREAM_MODES: list[StreamMode] = ["updates", "custom", "messages-tuple"]
TIMEOUT = (30.0, 300.0, 30.0, 30.0)
"""Connect, read (a run streams for minutes at most), write, pool: seconds."""
_GONE = (httpx.TransportError,)
T = TypeVar("T")


@dataclass
class Turn:
    """One question's outcome as the client saw it."""

    seconds: float
    run_id: str | None = None
    status: str | None = None
    rejoined: bool = False
    """The run's stream broke and the turn was finished by joining it on another worker."""
    resent: int = 0
    problems: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    """What happened when, in seconds from the question: `0.0 stream w0`, `3.1 gone w0`, ..."""


def demo_config(folder: Path) -> Path:
    """Write a `langgraph.json` serving the model-free demo graph with the same page app."""
    config = json.loads((REPO / "langgraph.json").read_text())
    config["graphs"] = {"acrag": "app/server/demo_graph.py:graph"}
    path = folder / "langgraph-demo.json"
    path.write_text(json.dumps(config))
    return path


def _adopt(client: SyncLangGraphClient, thread_id: str, question: str) -> str | None:
    """Return the id of a run of `question` already created on the thread (a lost reply)."""
    for run in client.runs.list(thread_id, limit=5):
        kwargs: Any = dict(run).get("kwargs") or {}
        if (kwargs.get("input") or {}).get("question") == question:
            return str(run["run_id"])
    return None


def _stream(client: SyncLangGraphClient, thread_id: str, question: str, turn: Turn) -> None:
    def created(meta: Any) -> None:
        turn.run_id = str(meta["run_id"])

    body: dict[str, Any] = {
        "question": question,
        "messages": [{"type": "human", "content": question}],
    }
    for part in client.runs.stream(
        thread_id,
        "acrag",
        input=body,
        stream_mode=STREAM_MODES,
        multitask_strategy="reject",
        on_run_created=created,
    ):
        if part.event == "error":
            turn.problems.append(f"error event: {str(part.data)[:200]}")


def ask(clients: Sequence[SyncLangGraphClient], first: int, thread_id: str, question: str) -> Turn:
    """Ask one question, moving to the next worker whenever one stops answering."""
    turn = Turn(seconds=0.0)
    start = time.perf_counter()
    deadline = start + 180
    index = first
    while time.perf_counter() < deadline:
        client = clients[index % len(clients)]
        worker = f"w{index % len(clients)}"
        try:
            if (
                turn.run_id is None
                and turn.resent
                and (found := _adopt(client, thread_id, question))
            ):
                turn.run_id = found
            if turn.run_id is None:
                turn.log.append(f"{time.perf_counter() - start:.1f} stream {worker}")
                _stream(client, thread_id, question, turn)
            else:  # the run exists: follow it from this worker until it ends
                turn.log.append(f"{time.perf_counter() - start:.1f} join {worker}")
                turn.rejoined = True
                for part in client.runs.join_stream(thread_id, turn.run_id):
                    if part.event == "error":
                        turn.problems.append(f"error event: {str(part.data)[:200]}")
            turn.status = client.runs.get(thread_id, str(turn.run_id))["status"]
            break
        except _GONE:
            turn.log.append(f"{time.perf_counter() - start:.1f} gone {worker}")
            index += 1
            turn.resent += turn.run_id is None
        except httpx.HTTPStatusError as error:
            if error.response.status_code != 409:  # 409: the thread is still busy, wait
                turn.problems.append(f"HTTP {error.response.status_code}: {error.response.text}")
                break
            time.sleep(0.25)
    else:
        turn.problems.append("no answer within 180 s")
    turn.seconds = time.perf_counter() - start
    return turn


def thread_problems(client: SyncLangGraphClient, thread_id: str, questions: list[str]) -> list[str]:
    """Check a thread's stored messages: its questions once each, in order, one answer each."""
    values: Any = client.threads.get_state(thread_id)["values"]
    messages = values.get("messages") or []
    humans = [m["content"] for m in messages if m["type"] == "human"]
    answers = sum(m["type"] == "ai" for m in messages)
    problems = []
    if humans != questions:
        problems.append(f"{thread_id}: human messages {humans} != questions {questions}")
    if answers != len(questions):
        problems.append(f"{thread_id}: {answers} answers to {len(questions)} questions")
    return problems


def on_any(clients: Sequence[SyncLangGraphClient], first: int, call: Callable[[Any], T]) -> T:
    """Return `call(client)` from the first worker, from the next ones if it is gone."""
    for offset in range(len(clients)):
        try:
            return call(clients[(first + offset) % len(clients)])
        except _GONE:
            if offset == len(clients) - 1:
                raise
    raise ValueError("no clients")


def connect(url: str, headers: Mapping[str, str] | None = None) -> SyncLangGraphClient:
    """Return an SDK client for one worker (`headers`: e.g. the bearer token)."""
    return get_sync_client(url=url, timeout=TIMEOUT, headers=headers)


def _conversation(
    clients: Sequence[SyncLangGraphClient],
    number: int,
    questions: int,
    report: LoadReport,
    turns: list[Turn],
) -> None:
    first = number % len(clients)
    asked = thread_questions(number, questions)
    # The id is chosen here and the create is idempotent: a create that reached a worker
    # killed before it answered, then retried on another, must not make a second thread.
    thread_id = str(uuid.uuid4())
    on_any(
        clients,
        first,
        lambda c: c.threads.create(
            thread_id=thread_id, metadata={"conversation": number}, if_exists="do_nothing"
        ),
    )
    for question in asked:
        turn = ask(clients, first, thread_id, question)
        turns.append(turn)
        report.latencies.append(turn.seconds)
        if turn.problems or turn.status != "success":
            report.errors.append(f"{thread_id}: {question}: {turn.status} {turn.problems}")
    report.leaks.extend(on_any(clients, first, lambda c: thread_problems(c, thread_id, asked)))


def run_load(
    urls: Sequence[str],
    *,
    threads: int,
    questions: int,
    headers: Mapping[str, str] | None = None,
) -> tuple[LoadReport, list[Turn]]:
    """Run `threads` conversations at once, conversation i starting on worker i mod N."""
    report = LoadReport(threads=threads, questions=questions)
    turns: list[Turn] = []
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        jobs = []
        for i in range(threads):
            clients = [connect(url, headers) for url in urls]
            jobs.append(pool.submit(_conversation, clients, i, questions, report, turns))
        for job in jobs:
            job.result()
    report.wall = time.perf_counter() - start
    return report, turns


def warm(urls: Sequence[str], headers: Mapping[str, str] | None = None) -> None:
    """Run one question per worker so first-run imports are not measured."""
    for url in urls:
        client = connect(url, headers)
        thread_id = str(client.threads.create()["thread_id"])
        ask([client], 0, thread_id, "What is the capital of France?")
