"""kill -9 during `acrag ingest`: after the restart the index is consistent, not just usable.

tests/integration/stores/test_ingest_cli_kill.py already kills ingestion and checks that the
index answers and a rerun completes; this adds the consistency checks: the vector store has
no duplicate chunks, BM25 agrees with it record for record, and a second rerun changes nothing.
"""

import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from stores.index import open_index

ROWS = 120


def _kill_mid_ingestion(command: list[str]) -> None:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: list[str] = []

    def read() -> None:
        while chunk := process.stderr.read(64):  # type: ignore[union-attr]
            seen.append(chunk.decode(errors="replace"))

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 120
    while not re.search(rf"\| ?[1-9]\d*/{ROWS}", "".join(seen)):
        assert process.poll() is None, "".join(seen)
        assert time.monotonic() < deadline, "no progress within 120 s"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def _assert_consistent(home: Path) -> int:
    index = open_index(home=home)
    stored = index.collection.get(include=["metadatas", "documents"])
    ids, metadatas = stored["ids"], stored["metadatas"] or []
    assert len(ids) == len(set(ids)) == index.collection.count()
    assert len({m["hash"] for m in metadatas}) == len(ids)  # no chunk stored twice
    lexical = index.fresh_lexical()
    assert sorted(r.id for r in lexical.records) == sorted(ids)  # BM25 matches Chroma
    assert not (lexical.folder / "index.partial").exists()
    return len(ids)


def test_index_is_consistent_after_sigkill_and_rerun(tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    rows = [
        {"title": f"Entry {i}", "text": f"Entry {i} concerns topic{i} only."} for i in range(ROWS)
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    home = tmp_path / "home"
    command = [sys.executable, "-m", "app.cli", "--home", str(home), "ingest", str(source)]
    _kill_mid_ingestion([*command, "--batch-size", "8", "--progress"])  # the bar, into a pipe
    partial = _assert_consistent(home)
    assert partial < ROWS

    for expected_added in (ROWS - partial, 0):  # the rerun completes; a second one is a no-op
        rerun = subprocess.run(
            [*command, "--no-progress"], capture_output=True, text=True, timeout=300
        )
        assert rerun.returncode == 0, rerun.stderr
        assert f"{expected_added} added" in rerun.stdout, rerun.stdout
        assert _assert_consistent(home) == ROWS
