"""Measure the local models' speed.

Decode speed through the LangChain wrapper against raw xllamacpp, model load time, and
embedding throughput against raw sentence-transformers.

Run: `.venv/bin/python -m bench.suites.model_speed --repeats 3`; prints a Markdown table.
"""

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from models.embeddings import MiniLMEmbeddings, minilm_path
from models.files import smollm2_path
from models.llamacpp import ChatLlamaCpp, engine_for

PROMPT = "Write a short paragraph about the history of Paris."
MAX_TOKENS = 128
_WORDS = "river city bridge museum history king palace garden street market".split()


def _best(runs: list[float]) -> float:
    return max(runs)


def _timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def decode_speeds(repeats: int) -> dict[str, float]:
    """Return tokens/s for raw xllamacpp and for ChatLlamaCpp (invoke and stream)."""
    path = str(smollm2_path())
    load_seconds, engine = _timed(lambda: engine_for(path, n_ctx=4096, n_threads=2))
    server = engine._server
    request = {
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": MAX_TOKENS,
        "temperature": 0.0,
        "seed": 0,
        "stream": False,
    }
    model = ChatLlamaCpp(model_path=path, max_tokens=MAX_TOKENS)

    def raw() -> int:
        return int(server.handle_chat_completions(request)["usage"]["completion_tokens"])

    def wrapped() -> int:
        return int(model.invoke(PROMPT).usage_metadata["output_tokens"])  # type: ignore[index]

    def streamed() -> int:
        return len([c for c in model.stream(PROMPT) if c.content])

    speeds: dict[str, list[float]] = {"raw": [], "invoke": [], "stream": []}
    raw()  # warm the prompt cache equally for all three
    for _ in range(repeats):
        for name, work in (("raw", raw), ("invoke", wrapped), ("stream", streamed)):
            seconds, tokens = _timed(work)
            speeds[name].append(tokens / seconds)
    result = {name: _best(runs) for name, runs in speeds.items()}
    result["load_seconds"] = load_seconds
    return result


def embedding_speeds(count: int, repeats: int) -> dict[str, float]:
    """Return passages/s of 100-word passages for MiniLMEmbeddings and raw sentence-transformers."""
    from sentence_transformers import SentenceTransformer

    passages = [
        " ".join(_WORDS[(i + j) % len(_WORDS)] for j in range(100)) + f" {i}" for i in range(count)
    ]
    ours = MiniLMEmbeddings()
    raw = SentenceTransformer(str(minilm_path()), device="cpu")
    ours.embed_documents(passages[:8])
    raw.encode(passages[:8])
    runs: dict[str, list[float]] = {"raw": [], "ours": []}
    for _ in range(repeats):
        seconds, _ = _timed(lambda: raw.encode(passages, batch_size=64, normalize_embeddings=True))
        runs["raw"].append(count / seconds)
        seconds, _ = _timed(lambda: ours.embed_documents(passages))
        runs["ours"].append(count / seconds)
    return {name: statistics.median(values) for name, values in runs.items()}


def main() -> None:
    """Run both measurements and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--passages", type=int, default=256)
    args = parser.parse_args()
    decode = decode_speeds(args.repeats)
    embed = embedding_speeds(args.passages, args.repeats)
    print("| measure | value |\n|---|---:|")
    print(f"| SmolLM2 load (s) | {decode['load_seconds']:.2f} |")
    print(f"| decode, raw xllamacpp (tok/s) | {decode['raw']:.1f} |")
    print(f"| decode, ChatLlamaCpp.invoke (tok/s) | {decode['invoke']:.1f} |")
    print(f"| decode, ChatLlamaCpp.stream (tok/s) | {decode['stream']:.1f} |")
    print(
        f"| wrapper / raw (invoke, stream) | {decode['invoke'] / decode['raw']:.1%}, "
        f"{decode['stream'] / decode['raw']:.1%} |"
    )
    print(f"| embeddings, raw sentence-transformers (passages/s) | {embed['raw']:.1f} |")
    print(f"| embeddings, MiniLMEmbeddings (passages/s) | {embed['ours']:.1f} |")
    print(f"| embeddings ours / raw | {embed['ours'] / embed['raw']:.1%} |")


if __name__ == "__main__":
    main()
