"""Serving latency and throughput: what the browser sees, and 4 concurrent chats.

Starts `acrag serve` on a free loopback port with a fresh data directory, indexes a small
document through the upload endpoint, then measures:

1. in headless Chromium (the chat page's own `window.acragTimings`): time to the first step
   event, to the first answer token, and to the end of the run, per question;
2. over HTTP (the same SSE endpoint the page uses): runs completed per minute with 1 and with
   `--concurrency` simultaneous chats, and their latency.

Usage:
    .venv/bin/python -m bench.suites.serve_latency [--demo] [--questions 4] [--concurrency 4]
"""

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.suites.load import start_server

__all__ = ["main"]

DOC = (
    "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair. "
    "The Louvre is the most visited museum in the world. The Seine flows through Paris."
)
QUESTIONS = [
    "When was the Eiffel Tower completed?",
    "Which river flows through Paris?",
    "What is the most visited museum in the world?",
    "Where is the Eiffel Tower?",
]
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


def _browser_timings(url: str, questions: list[str]) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page()
        page.goto(f"{url}/ui/")
        page.wait_for_selector("body[data-ready=true]")
        for index, question in enumerate(questions):
            page.click("#new-thread")  # a fresh chat each time: no follow-up condensing
            page.fill("#question", question)
            page.click("#ask")
            page.locator(".turn[data-done=true]").wait_for(timeout=300_000)
            print(f"  browser question {index + 1}/{len(questions)} done", file=sys.stderr)
        timings: list[dict[str, Any]] = page.evaluate("window.acragTimings")
        browser.close()
    return timings


async def _chat(client: httpx.AsyncClient, question: str) -> dict[str, float | None]:
    thread = (await client.post("/threads", json={"metadata": {"title": question}})).json()
    body = {
        "assistant_id": "acrag",
        "stream_mode": ["custom", "messages-tuple"],
        "input": {"question": question, "messages": [{"type": "human", "content": question}]},
    }
    start = time.perf_counter()
    first_step = first_token = None
    path = f"/threads/{thread['thread_id']}/runs/stream"
    async with client.stream("POST", path, json=body) as response:
        async for line in response.aiter_lines():
            if line == "event: custom" and first_step is None:
                first_step = time.perf_counter() - start
            elif line == "event: messages" and first_token is None:
                first_token = time.perf_counter() - start
    return {
        "first_step": first_step,
        "first_token": first_token,
        "total": time.perf_counter() - start,
    }


async def _load(url: str, *, concurrency: int, per_chat: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=600) as client:

        async def one_user(offset: int) -> list[dict[str, float | None]]:
            return [
                await _chat(client, QUESTIONS[(offset + i) % len(QUESTIONS)])
                for i in range(per_chat)
            ]

        start = time.perf_counter()
        results = await asyncio.gather(*(one_user(i) for i in range(concurrency)))
        wall = time.perf_counter() - start
    runs = [run for user in results for run in user]
    totals = [float(run["total"] or 0) for run in runs]
    return {
        "concurrency": concurrency,
        "runs": len(runs),
        "wall_s": round(wall, 2),
        "runs_per_min": round(60 * len(runs) / wall, 2),
        "median_total_s": round(statistics.median(totals), 2),
        "max_total_s": round(max(totals), 2),
    }


def _summary(values: list[float | None]) -> str:
    seen = [v for v in values if v is not None]
    if not seen:
        return "n/a"
    return f"median {statistics.median(seen):.2f}s (min {min(seen):.2f}, max {max(seen):.2f})"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", action="store_true", help="model-free demo graph")
    parser.add_argument("--questions", type=int, default=4, help="browser questions")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--per-chat", type=int, default=2, help="questions per concurrent chat")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="acrag-bench-"))
    server, url = start_server(home, demo=args.demo, log=home / "serve.log")
    try:
        upload = httpx.post(
            f"{url}/acrag/upload",
            timeout=300,
            files={"files": ("paris.txt", DOC.encode(), "text/plain")},
        )
        upload.raise_for_status()
        questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.questions)]
        timings = _browser_timings(url, questions)
        single = asyncio.run(_load(url, concurrency=1, per_chat=args.per_chat))
        loaded = asyncio.run(_load(url, concurrency=args.concurrency, per_chat=args.per_chat))
    finally:
        server.terminate()
        server.wait(30)
    seconds = {
        key: [t[key] / 1000 if t.get(key) is not None else None for t in timings]
        for key in ("firstStep", "firstToken", "firstAnswer", "end")
    }
    report = {
        "graph": "demo" if args.demo else "real (default local model)",
        "browser": {key: _summary(values) for key, values in seconds.items()},
        "browser_raw_s": seconds,
        "throughput": [single, loaded],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
