"""Chroma stopped mid-run and restarted: the run degrades with a stated reason, then recovers."""

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langchain_core.retrievers import BaseRetriever

from graphs import Context, build_graph
from stores.ingest import ingest
from stores.retrieval import make_retriever
from tests.fakes import (
    FakeClassifier,
    FakeWebSearch,
    FixedSupport,
    FixedUsefulness,
    KeywordEvaluator,
    rule_model,
)

CHROMA = Path(__file__).resolve().parents[3] / ".venv" / "bin" / "chroma"


class ChromaServer:
    """A `chroma run` on loopback that can be stopped and started again on the same data."""

    def __init__(self, data: Path) -> None:
        self.data = data
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        executable = str(CHROMA) if CHROMA.exists() else shutil.which("chroma")
        assert executable, "the chroma executable from the chromadb package is missing"
        command = [executable, "run", "--path", str(self.data / "db"), "--host", "127.0.0.1"]
        log = (self.data / "server.log").open("ab")
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, (self.data / "server.log").read_text()
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "chroma server did not start within 60 s"
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ChromaServer]:
    chroma = ChromaServer(tmp_path)
    chroma.start()
    try:
        yield chroma
    finally:
        chroma.stop()


class StopAfterFirst(BaseRetriever):
    """Delegate to `inner`; stop the server right after the first retrieval of the run."""

    inner: BaseRetriever
    server: ChromaServer
    calls: int = 0

    def _get_relevant_documents(self, query, *, run_manager):
        self.calls += 1
        found = self.inner.invoke(query)
        if self.calls == 1:
            self.server.stop()
        return found


def make_graph(retriever: BaseRetriever):
    return build_graph(
        generator=rule_model(
            [("Write only the next", "Gustave Eiffel built it."), ("Question:", "In 1889.")]
        ),
        rewriter=rule_model(default="Eiffel, tower"),
        retriever=retriever,
        web_search=FakeWebSearch(),
        classifier=FakeClassifier("B"),
        evaluator=KeywordEvaluator(("Eiffel",)),
        support=FixedSupport(otherwise="full"),
        usefulness=FixedUsefulness(),
    )


def degraded(result: dict) -> list[str]:
    return list(result["degraded"])


def test_chroma_stopped_mid_run_degrades_then_recovers_after_restart(
    server: ChromaServer, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "eiffel.md").write_text(
        "# Eiffel Tower\n\nThe Eiffel Tower in Paris was finished in 1889 by Eiffel's company.\n"
    )
    home = tmp_path / "home"
    report = ingest([docs], home=home, chroma_url=server.url, progress=False)
    assert report.total_chunks == 1
    inner = make_retriever(home=home, chroma_url=server.url, mode="dense", k=2)
    retriever = StopAfterFirst(inner=inner, server=server)
    question = {"question": "When was the Eiffel Tower finished?"}

    started = time.monotonic()
    result = make_graph(retriever).invoke(question, context=Context(route="C", ircot_max_steps=3))
    assert time.monotonic() - started < 60  # bounded retries, no hang
    reasons = degraded(result)
    assert reasons and reasons[0].startswith("the local index failed:")
    assert f"Degraded: {reasons[0]}." in result["notes"]
    assert result["answer"]  # an answer, not a crash or a recursion error

    down = make_graph(inner).invoke(question, context=Context(route="B"))
    assert degraded(down) and any("Degraded: the local index failed" in n for n in down["notes"])
    assert down["abstained"]  # nothing retrieved: the answer says so instead of guessing

    server.start()
    again = make_graph(inner).invoke(question, context=Context(route="B"))
    assert degraded(again) == []
    assert any(c["source"].endswith("eiffel.md") for c in again["citations"])  # cited again
