"""What asking the reader for token log-probabilities costs, paired per question.

python -m bench.suites.logprob_cost --data FILE [--limit 10] [--model qwen2.5-coder-1.5b]

Each of the first `limit` questions is answered from its own passages (the graph's answer
prompt, short style, its token cap) twice, with and without `logprobs`, alternating which goes
first, each a cold start (no KV-cache reuse: both pay the same prefill), at temperature 0 so
both write the same answer. Prints the seconds of each, llama.cpp's prompt and generation
milliseconds, and the paired mean difference with its 95% interval (t, over questions).
"""

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.data import load_questions
from models.defaults import DEFAULT_MODEL

__all__ = ["main", "paired_interval"]

_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def paired_interval(differences: Sequence[float]) -> tuple[float, float, float]:
    """Return the mean difference and its 95% t interval (1.96 beyond 10 pairs)."""
    mean = statistics.fmean(differences)
    if len(differences) < 2:
        return mean, -math.inf, math.inf
    half = _T95.get(len(differences) - 1, 1.96) * statistics.stdev(differences)
    half /= math.sqrt(len(differences))
    return mean, mean - half, mean + half


def _timed(reader: Any, messages: Any, *, logprobs: bool) -> dict[str, Any]:
    options = {"logprobs": True} if logprobs else {}
    started = time.perf_counter()
    reply = reader.invoke(messages, **options)
    timings = reply.response_metadata.get("timings") or {}
    return {
        "seconds": time.perf_counter() - started,
        "prompt_ms": timings.get("prompt_ms"),
        "predicted_ms": timings.get("predicted_ms"),
        "predicted_n": timings.get("predicted_n"),
        "text": str(reply.content),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Time the reader with and without log-probabilities on a few questions."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suites.logprob_cost", description=__doc__
    )
    parser.add_argument("--data", type=Path, required=True, help="a QA file")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    from graphs import Context
    from models import load_chat_model
    from nodes.generate import answer_messages

    context = Context()
    reader = load_chat_model(
        args.model,
        repeat_penalty=context.repeat_penalty,
        prompt_cache=False,
        max_tokens=context.max_answer_tokens,
    )
    reader.invoke("Say hi.")  # load the model before timing
    rows: list[dict[str, Any]] = []
    for index, question in enumerate(load_questions([args.data], limit=args.limit)):
        evidence: list[Any] = [{"title": p.title, "text": p.text} for p in question.passages[:4]]
        messages = answer_messages(question.question, evidence, short=True)
        order = (True, False) if index % 2 == 0 else (False, True)
        runs = {flag: _timed(reader, messages, logprobs=flag) for flag in order}
        rows.append({"id": question.id, "with": runs[True], "without": runs[False]})
    differences = [r["with"]["seconds"] - r["without"]["seconds"] for r in rows]
    mean, low, high = paired_interval(differences)
    report = {
        "questions": len(rows),
        "same_answers": sum(r["with"]["text"] == r["without"]["text"] for r in rows),
        "seconds_with": round(statistics.fmean(r["with"]["seconds"] for r in rows), 3),
        "seconds_without": round(statistics.fmean(r["without"]["seconds"] for r in rows), 3),
        "difference": [round(mean, 3), round(low, 3), round(high, 3)],
        "rows": rows,
    }
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
