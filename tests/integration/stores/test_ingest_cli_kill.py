"""`acrag ingest` end to end: summary, exit codes, --web, --remove, and a SIGKILL mid-run."""

import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.cli import main
from stores.retrieval import make_retriever
from stores.web import make_web_search


def test_cli_ingest_reports_skips_and_summary(
    tmp_path: Path, small_corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (small_corpus / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    home = str(tmp_path / "home")
    assert main(["--home", home, "ingest", "--no-progress", str(small_corpus)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"skipped .*broken\.pdf: corrupt or unreadable PDF", out)
    assert "4 file(s) read, 1 skipped; chunks: 5 added" in out
    (small_corpus / "broken.pdf").unlink()
    assert main(["--home", home, "ingest", "--no-progress", str(small_corpus)]) == 0
    assert "0 added, 5 unchanged" in capsys.readouterr().out
    assert main(["--home", home, "ingest", "--remove", str(small_corpus / "etna.html")]) == 0
    assert "removed 1 chunk(s)" in capsys.readouterr().out


def test_cli_without_paths_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--home", str(tmp_path), "ingest"]) == 2
    assert "give at least one PATH" in capsys.readouterr().err


def test_web_flag_feeds_the_local_web_backend(
    tmp_path: Path, small_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    home = tmp_path / "home"
    assert main(["--home", str(home), "ingest", "--web", "--no-progress", str(small_corpus)]) == 0
    assert make_retriever(home=home).invoke("Eiffel Tower") == []  # documents stay empty
    result = make_web_search("auto", home=home).search("Which volcano is in Sicily?", max_results=2)
    assert result.backend == "local" and result.degraded is None
    top = result.documents[0]
    assert top.metadata["title"] == "Mount Etna" and top.metadata["origin"] == "web"
    assert top.metadata["url"] is None  # no server path disguised as a file:// URL
    assert top.metadata["source"] == "docs/etna.html"
    assert len(result.documents) == 2


def _read_progress(stream, seen: list[str]) -> None:
    while chunk := stream.read(64):
        seen.append(chunk.decode(errors="replace"))


def test_sigkill_mid_ingestion_leaves_usable_index_and_rerun_completes(tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    rows = [
        {"title": f"Item {i}", "text": f"Item {i} is about subject{i} and nothing else."}
        for i in range(300)
    ]
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    home = tmp_path / "home"
    command = [sys.executable, "-m", "app.cli", "--home", str(home), "ingest", str(source)]
    command += ["--batch-size", "32"]
    process = subprocess.Popen(  # the bar, drawn into a pipe on request, says when to kill
        [*command, "--progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    seen: list[str] = []
    reader = threading.Thread(target=_read_progress, args=(process.stderr, seen), daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not re.search(r"\| ?[1-9]\d*/300", "".join(seen)):
        assert process.poll() is None, "".join(seen)
        assert time.monotonic() < deadline, "no progress within 120 s"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    stored = make_retriever(home=home, mode="bm25", k=3).invoke("subject0")
    assert [d.metadata["title"] for d in stored] == ["Item 0"]  # usable after the kill

    rerun = subprocess.run([*command, "--no-progress"], capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    added, unchanged = map(int, re.search(r"(\d+) added, (\d+) unchanged", rerun.stdout).groups())
    assert added + unchanged == 300 and 0 < unchanged < 300
    assert "300 in the index" in rerun.stdout
    found = make_retriever(home=home, mode="bm25", k=1).invoke("subject299")
    assert found[0].metadata["title"] == "Item 299"
