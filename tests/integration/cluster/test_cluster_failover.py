"""The stock LangGraph server on PostgreSQL + Redis with two workers; one is killed mid-run.

20 conversations of 3 questions each run at once against two workers (the demo graph, so the
model is not the limit). Once runs are flowing, worker 1 gets SIGKILL. Then:
- no thread ever had two runs running at once (sampled from the runs table during the load,
  and read back from the checkpoints: each thread's checkpoints form one chain in which every
  run's checkpoints are contiguous),
- every checkpoint written before the kill is still there,
- the killed worker's runs were taken over (a later attempt of the same run finished on the
  surviving worker), every turn ended in success, every conversation holds exactly its
  questions and one answer each, and takes one more question afterwards.
Needs `.venv-cluster` (`make cluster-setup`, part of `make test`) and `make system-deps`.
"""

import json
import threading
import time
from collections import Counter, defaultdict
from datetime import datetime

import httpx
import psycopg
import pytest

from app.server.cluster import Cluster
from app.server.cluster_load import (
    CLUSTER_PYTHON,
    ask,
    connect,
    demo_config,
    run_load,
    thread_problems,
    warm,
)

THREADS = 20
QUESTIONS = 3
TOKEN = "cluster-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("cluster")
    if not CLUSTER_PYTHON.exists():
        pytest.fail(f"{CLUSTER_PYTHON} is missing: run `make cluster-setup`")
    running = Cluster(
        tmp_path / "cluster",
        2,
        python=str(CLUSTER_PYTHON),
        config=demo_config(tmp_path),
        jobs_per_worker=4,
        heartbeat=4,
        extra_env={"ACRAG_SERVE_TOKEN": TOKEN},
    )
    try:
        with running:
            warm(running.urls, AUTH)  # first runs import lazily: keep them out of the kill window
            yield running
    finally:
        running.postgres.remove()


class RunningSampler(threading.Thread):
    """Poll the runs table: record any thread with more than one running run."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.samples, self.doubles = url, 0, []
        self.finished = threading.Event()

    def run(self) -> None:
        query = (
            "SELECT thread_id, count(*) FROM runs WHERE status = 'running' "
            "GROUP BY thread_id HAVING count(*) > 1"
        )
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.finished.wait(0.1):
                self.doubles.extend(conn.execute(query).fetchall())
                self.samples += 1


def _checkpoints(url: str) -> list[tuple[str, str, str | None, dict]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT thread_id, checkpoint_id, parent_checkpoint_id,"
            " metadata || jsonb_build_object('ts', checkpoint->>'ts') FROM checkpoints"
            " WHERE checkpoint_ns = ''"
        ).fetchall()
    return [(str(t), str(c), p and str(p), m) for t, c, p, m in rows]


def _takeover_seconds(rows: list[tuple[str, str, str | None, dict]], killed: float) -> float:
    """Seconds from the kill to the first checkpoint of a run's second attempt."""
    firsts = [datetime.fromisoformat(m["ts"]) for *_, m in rows if m.get("run_attempt", 1) > 1]
    return round(min(firsts).timestamp() - killed, 1)


def _chain_problems(rows: list[tuple[str, str, str | None, dict]]) -> list[str]:
    """Each thread: one linear chain, each run's checkpoints contiguous along it."""
    by_thread: dict[str, dict[str | None, list[tuple[str, dict]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for thread, checkpoint, parent, metadata in rows:
        by_thread[thread][parent].append((checkpoint, metadata))
    problems = []
    for thread, children in by_thread.items():
        forks = {parent: kids for parent, kids in children.items() if len(kids) > 1}
        if forks:
            problems.append(f"{thread}: the history forks at {list(forks)}")
            continue
        runs, parent = [], None
        while children.get(parent):
            checkpoint, metadata = children[parent][0]
            if not runs or runs[-1] != metadata["run_id"]:
                runs.append(metadata["run_id"])
            parent = checkpoint
        if len(runs) != len(set(runs)):
            problems.append(f"{thread}: runs interleave along its history: {runs}")
    inputs = Counter(m["run_id"] for *_, m in rows if m["source"] == "input")
    # a retried attempt continues from the last checkpoint: it never applies its input again
    problems += [f"run {run} took its input {n} times" for run, n in inputs.items() if n > 1]
    return problems


@pytest.mark.filterwarnings("ignore:Reconnecting without a Last-Event-ID")
def test_two_workers_survive_a_sigkill_mid_run(cluster: Cluster):
    database = cluster.postgres.url
    sampler = RunningSampler(database)
    sampler.start()
    result: dict = {}

    def load_all() -> None:
        result["report"], result["turns"] = run_load(
            cluster.urls, threads=THREADS, questions=QUESTIONS, headers=AUTH
        )

    load = threading.Thread(target=load_all)
    started = time.monotonic()
    load.start()
    with psycopg.connect(database, autocommit=True) as conn:  # kill once both are busy
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            (done,) = conn.execute("SELECT count(*) FROM runs WHERE status = 'success'").fetchone()
            (running,) = conn.execute(
                "SELECT count(*) FROM runs WHERE status = 'running'"
            ).fetchone()
            if done >= THREADS // 2 and running >= 6:
                break
            time.sleep(0.05)
    cluster.kill_worker(1)
    killed_at, killed_wall = time.monotonic() - started, time.time()
    before_kill = {(t, c) for t, c, _, _ in _checkpoints(database)}
    load.join(300)
    assert not load.is_alive(), "the load did not finish within 5 minutes"
    sampler.finished.set()
    sampler.join(10)

    report, turns = result["report"], result["turns"]
    assert report.errors == [] and report.leaks == [], (report.errors[:5], report.leaks[:5])
    assert len(turns) == THREADS * QUESTIONS and all(t.status == "success" for t in turns)
    assert sampler.samples > 20 and sampler.doubles == []

    rows = _checkpoints(database)
    assert before_kill <= {(t, c) for t, c, _, _ in rows}, "checkpoints were lost"
    assert _chain_problems(rows) == []
    retried = {m["run_id"] for _, _, _, m in rows if m.get("run_attempt", 1) > 1}
    assert retried, "no run was taken over from the killed worker"
    assert any(t.rejoined for t in turns), "no broken stream was joined on the other worker"

    # every thread is free and continues from its last checkpoint on the surviving worker
    survivor = connect(cluster.urls[0], AUTH)
    threads = [t for t in survivor.threads.search(limit=100) if "conversation" in t["metadata"]]
    assert len(threads) == THREADS and {t["status"] for t in threads} == {"idle"}
    for thread in threads:
        thread_id = str(thread["thread_id"])
        asked = [
            m["content"]
            for m in survivor.threads.get_state(thread_id)["values"]["messages"]
            if m["type"] == "human"
        ]
        question = (
            f"[t{thread['metadata']['conversation']}q{QUESTIONS}] What is the capital of France?"
        )
        turn = ask([survivor], 0, thread_id, question)
        assert turn.status == "success" and turn.problems == [], turn
        assert thread_problems(survivor, thread_id, [*asked, question]) == []
    statuses = {
        r["status"] for t in threads for r in survivor.runs.list(str(t["thread_id"]), limit=20)
    }
    assert statuses == {"success"}, statuses
    slowest = sorted(turns, key=lambda t: -t.seconds)[:3]
    summary = {
        "killed_at_s": round(killed_at, 1),
        "retried_runs": len(retried),
        "takeover_s": _takeover_seconds(rows, killed_wall),
        "rejoined": sum(t.rejoined for t in turns),
        "slowest": [(round(t.seconds, 1), t.log) for t in slowest],
    }
    print(json.dumps({**report.summary(), **summary}))


def test_acrag_serve_rules_hold_on_the_stock_server(cluster: Cluster):
    url = cluster.urls[0]  # worker 1 may have been killed by the test above
    assert httpx.post(f"{url}/threads/search", json={}).status_code == 401
    assert httpx.post(f"{url}/threads/search", json={}, headers=AUTH).status_code == 200
    foreign = {**AUTH, "Host": "attacker.example"}
    assert httpx.post(f"{url}/threads/search", json={}, headers=foreign).status_code == 403
    origin = {**AUTH, "Origin": "https://attacker.example"}
    assert httpx.post(f"{url}/threads/search", json={}, headers=origin).status_code == 403
    thread_id = httpx.post(f"{url}/threads", json={}, headers=AUTH).json()["thread_id"]
    run = {"assistant_id": "acrag", "input": {"question": "Where is Paris?"}}
    for context, field in (({"home": "/etc"}, "home"), ({"generator_model": "x"}, "generator")):
        refused = httpx.post(
            f"{url}/threads/{thread_id}/runs/wait", json={**run, "context": context}, headers=AUTH
        )
        assert refused.status_code == 422 and field in refused.text
    long = {**run, "input": {"question": "x" * 2001}}
    assert httpx.post(f"{url}/threads/{thread_id}/runs", json=long, headers=AUTH).status_code == 422
    big = httpx.post(f"{url}/threads/search", content=b"{" + b" " * 2**21 + b"}", headers=AUTH)
    assert big.status_code == 413
    done = httpx.post(f"{url}/threads/{thread_id}/runs/wait", json=run, headers=AUTH, timeout=120)
    assert done.status_code == 200 and "Paris" in json.dumps(done.json())
    page = httpx.get(f"{url}/ui/")
    assert (
        page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    )
