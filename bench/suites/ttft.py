"""Time to the first answer token over the run API, warm, per route, beside bare llama.cpp.

Starts `acrag serve` (the real graph, the default reader) on a data directory holding the
sample corpus, warms it with one run, then asks each question under routes B and C and
reports when the first step and the first `messages` token reached the client (median and
95th percentile). In the same run, the bare library: xllamacpp, the same reader file and
threads, streaming an answer to the same questions from the top passages a plain retriever
returns (whole passages, no judges, no graph), timed to its first token. The ratio of the
two holds on a noisy machine; the seconds do not.

    python -m bench.suites.ttft [--repeats 1]
"""

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.harness.paths import REPOSITORY
from bench.harness.stores_common import percentile
from bench.suites.load import start_server

__all__ = ["QUESTIONS", "bare_first_token", "main", "prefill_per_second", "time_run"]

QUESTIONS = (
    "Who cracked the Enigma code in World War 2?",
    "Which film directed by Roman Polanski stars Emmanuelle Seigner?",
    "Who composed the score of the film Alien?",
    "When was the Electronic Fund Transfer Act passed?",
    "Who was the first one-million-pound winner of Who Wants to Be a Millionaire?",
)
"""Five different questions over the sample corpus: a repeated question would find its whole
prompt in llama.cpp's KV cache and time nothing but decoding."""


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


def bare_first_token(server: Any, messages: list[dict[str, str]]) -> float:
    """Seconds to the first streamed content of one raw xllamacpp chat request."""
    first: list[float] = []
    start = time.perf_counter()

    def deliver(chunk: Any) -> bool:
        choices = chunk.get("choices") or [{}] if isinstance(chunk, dict) else [{}]
        if not first and (choices[0].get("delta") or {}).get("content"):
            first.append(time.perf_counter() - start)
        return bool(first)  # True stops generation: only the first token is timed

    request = {"messages": messages, "max_tokens": 8, "temperature": 0.0, "stream": True}
    server.handle_chat_completions(request, deliver)
    return first[0] if first else float("nan")


def prefill_per_second(server: Any, messages: list[dict[str, str]]) -> tuple[int, float]:
    """Prompt tokens and llama.cpp's own prompt-evaluation speed (tokens/s) for `messages`.

    The request turns llama.cpp's prompt cache off, so every token of the prompt is evaluated,
    and the same messages count the same tokens each time.
    """
    request = {"messages": messages, "max_tokens": 1, "temperature": 0.0, "cache_prompt": False}
    timings = server.handle_chat_completions({**request, "stream": False}).get("timings", {})
    return int(timings.get("prompt_n", 0)), float(timings.get("prompt_per_second", "nan"))


def _bare_runs(home: Path, questions: Sequence[str]) -> tuple[list[float], tuple[int, float]]:
    """First-token seconds of the bare reader over plain top-4 retrieval, warm.

    Also the reader's prompt-evaluation speed, on the longest of those prompts.
    """
    from graphs.context import Context
    from models.chat import load_chat_model
    from models.defaults import DEFAULT_MODEL
    from models.llamacpp import ChatLlamaCpp, engine_for
    from nodes.generate import answer_messages
    from stores.retrieval import make_retriever

    retriever = make_retriever(home=home, k=Context().top_k)
    reader = load_chat_model(DEFAULT_MODEL)  # the graph's reader, the same GGUF file
    if not isinstance(reader, ChatLlamaCpp):
        raise TypeError(f"the default reader {DEFAULT_MODEL} is not a local llama.cpp model")
    server = engine_for(reader.model_path, n_ctx=reader.n_ctx, n_threads=reader.n_threads)._server
    prompts = []
    for question in questions:
        passages = [
            {"title": str(d.metadata.get("title", "")), "text": d.page_content}
            for d in retriever.invoke(question)
        ]
        built = answer_messages(question, passages, short=False)  # type: ignore[arg-type]
        roles = {"system": "system", "human": "user"}
        prompts.append([{"role": roles[m.type], "content": str(m.content)} for m in built])
    bare_first_token(server, prompts[-1])  # warm: loads the model, as the graph's warm-up
    seconds = [bare_first_token(server, p) for p in prompts]
    longest = max(prompts, key=lambda p: sum(len(m["content"]) for m in p))
    return seconds, prefill_per_second(server, longest)


def _peak_mb(pid: int) -> float:
    """Peak resident memory of a process in MB (Linux), NaN where unknown."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _row(name: str, tokens: list[float], runs: list[dict[str, float | None]]) -> str:
    steps = [r["step"] or float("nan") for r in runs]
    ends = [r["end"] or float("nan") for r in runs]
    cells = [
        statistics.median(steps) if runs else float("nan"),
        statistics.median(tokens),
        percentile(tokens, 0.95),
        statistics.median(ends) if runs else float("nan"),
    ]
    return f"| {name} | {len(tokens)} | " + " | ".join(f"{c:.2f}" for c in cells) + " |"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the warm timings per route and the bare llama.cpp call's, from one run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="passes over the 5 questions")
    args = parser.parse_args(argv)
    questions = list(QUESTIONS) * max(args.repeats, 1)
    medians: dict[str, float] = {}
    peak = float("nan")
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        _ingest(home)
        server, url = start_server(home, demo=False, log=home / "serve.log")
        try:
            with httpx.Client(base_url=url, timeout=900) as client:
                time_run(client, "What is the capital of France?", "B")  # warm: models load
                for route in ("B", "C"):
                    runs = [time_run(client, q, route) for q in questions]
                    tokens = [r["token"] or float("nan") for r in runs]
                    medians[route] = statistics.median(tokens)
                    lines.append(_row(f"route {route} (acrag serve)", tokens, runs))
            peak = _peak_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
        bare, (prompt_tokens, per_second) = _bare_runs(home, questions)
    medians["bare"] = statistics.median(bare)
    lines.append(_row("bare xllamacpp, top-4 passages", bare, []))
    out = [
        "| run | n | first step p50 (s) | first answer token p50 (s) | p95 (s) | end p50 (s) |",
        "|---|---:|---:|---:|---:|---:|",
        *lines,
        "",
        f"route B / bare = {medians['B'] / medians['bare']:.2f}x; "
        f"route C / bare = {medians['C'] / medians['bare']:.2f}x; "
        f"server peak memory {peak:.0f} MB",
        f"reader prompt evaluation: {per_second:.1f} tokens/s ({prompt_tokens}-token prompt, "
        f"none cached): a first token within 1.5 s leaves room for about "
        f"{1.5 * per_second:.0f} new prompt tokens, within 8 s about {8 * per_second:.0f}",
    ]
    print("\n".join(out))  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
