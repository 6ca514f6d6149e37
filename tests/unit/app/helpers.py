"""Helpers shared by the serving tests: the SSE parser, a run request, a fake ingest."""

import json
from pathlib import Path
from typing import Any

from app.server.upload import Outcome

QUESTION = "What is the capital of France?"


def parse_sse(body: str) -> list[tuple[str, Any]]:
    """Return the (event, data) pairs of an SSE body."""
    frames = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        lines = block.strip().splitlines()
        if not lines:
            continue
        event = next(line[7:] for line in lines if line.startswith("event: "))
        data = "\n".join(line[6:] for line in lines if line.startswith("data: "))
        frames.append((event, json.loads(data)))
    return frames


def run_input(question: str = QUESTION) -> dict[str, Any]:
    return {
        "assistant_id": "acrag",
        "input": {"question": question, "messages": [{"type": "human", "content": question}]},
        "stream_mode": ["updates", "custom", "messages-tuple"],
    }


def fake_ingest(path: Path, home: Path) -> Outcome:
    return Outcome("indexed", f"indexed {path.name} ({path.stat().st_size} bytes)")
