import json
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

CHROMA = Path(__file__).resolve().parents[3] / ".venv" / "bin" / "chroma"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start a real `chroma run` on loopback for the session; stop it afterwards."""
    executable = str(CHROMA) if CHROMA.exists() else shutil.which("chroma")
    assert executable, "the chroma executable from the chromadb package is missing"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    data = tmp_path_factory.mktemp("chroma-server")
    log = (data / "server.log").open("wb")
    process = subprocess.Popen(
        [executable, "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (data / "server.log").read_text()
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "chroma server did not start within 60 s"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, object]:
    """Store settings for both Chroma modes, with a fresh collection for each test."""
    url = request.getfixturevalue("chroma_server") if request.param == "server" else None
    return {"home": tmp_path / "home", "chroma_url": url, "collection": f"t{uuid.uuid4().hex[:12]}"}


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "eiffel.md").write_text(
        "# Eiffel Tower\n\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. "
        "It was designed by Gustave Eiffel's company and finished in 1889.\n"
    )
    (folder / "photosynthesis.txt").write_text(
        "Photosynthesis lets plants turn sunlight, water and carbon dioxide into sugar. "
        "Chlorophyll absorbs the light.\n"
    )
    (folder / "etna.html").write_text(
        "<html><head><title>Mount Etna</title></head><body><p>Mount Etna is an active "
        "stratovolcano on the east coast of Sicily.</p></body></html>"
    )
    passages = [
        {"title": "Danube", "text": "The Danube flows through Vienna and Budapest."},
        {"title": "Rhine", "text": "The Rhine flows from the Swiss Alps to the North Sea."},
    ]
    record = {"id": "q1", "question": "?", "answers": ["x"], "passages": passages}
    (folder / "passages.jsonl").write_text(json.dumps(record) + "\n")
    return folder
