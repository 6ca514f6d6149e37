"""Time to the first answer token over the run API, warm, per route (issue 17).

Starts `acrag serve` (the real graph, the default reader) on a data directory holding the
sample corpus, warms it with one run, then asks each question under routes B and C and
reports when the first step and the first `messages` token reached the client.

    python -m bench.ttft [--repeats 3]
"""

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from bench.load import start_server
from bench.paths import REPOSITORY

__all__ = ["main", "time_run"]

_QUESTIONS = (
    "Who cracked the Enigma code in World War 2?",
    "Which film directed by Roman Polanski stars Emmanuelle Seigner?",
)


def time_run(client: httpx.Client, question: str, route: str) -> dict[str, float | None]:
    """Stream one run on a new thread; return seconds to the first step, token and the end."""
    thread = client.post("/threads", json={}).json()["thread_id"]
    body = {
        "assistant_id": "acrag",
        "stream_mode": ["custom", "messages-tuple"],
        "stream_subgraphs": True,
        "input": {"messages": [{"type": "human", "content": question}]},
        "context": {"route": route},
    }
    start = time.perf_counter()
    step = token = None
    with client.stream("POST", f"/threads/{thread}/runs/stream", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("event: custom") and step is None:
                step = time.perf_counter() - start
            elif line.startswith("event: messages") and token is None:
                token = time.perf_counter() - start
    return {"step": step, "token": token, "end": time.perf_counter() - start}


def _ingest(home: Path) -> None:
    from stores.ingest import ingest
    from stores.web import LOCAL_WEB_COLLECTION

    sample = REPOSITORY / "app" / "sample_corpus"
    ingest([sample / "local"], home=home, progress=False)
    ingest([sample / "web"], home=home, collection=LOCAL_WEB_COLLECTION, progress=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the median warm timings per route."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs per question and route")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        _ingest(home)
        server, url = start_server(home, demo=False, log=home / "serve.log")
        try:
            with httpx.Client(base_url=url, timeout=600) as client:
                time_run(client, _QUESTIONS[0], "B")  # warm: models and indexes load
                print("| route | first step (s) | first answer token (s) | run end (s) |")  # noqa: T201
                print("|---|---:|---:|---:|")  # noqa: T201
                for route in ("B", "C"):
                    runs = [
                        time_run(client, q, route) for q in _QUESTIONS for _ in range(args.repeats)
                    ]
                    cells = [
                        statistics.median(r[k] or float("nan") for r in runs)
                        for k in ("step", "token", "end")
                    ]
                    print(f"| {route} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")  # noqa: T201
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
