"""Document upload: saved under the home, indexed file by file, progress as JSON lines."""

import json
from pathlib import Path

import pytest

from app.server.upload import safe_name

PAYLOAD = b"<script>alert(1)</script><img src=x onerror=alert(2)>"


def _lines(response) -> list[dict]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def test_upload_saves_indexes_and_reports_progress(client, tmp_path: Path):
    files = [
        ("files", ("notes.txt", PAYLOAD, "text/plain")),
        ("files", ("more.md", b"# More\nText.", "text/markdown")),
    ]
    response = client.post("/acrag/upload", files=files)
    assert response.status_code == 200
    lines = _lines(response)
    assert [(line["phase"], line["file"]) for line in lines[:-1]] == [
        ("saved", "notes.txt"),
        ("saved", "more.md"),
        ("indexing", "notes.txt"),
        ("indexed", "notes.txt"),
        ("indexing", "more.md"),
        ("indexed", "more.md"),
    ]
    assert lines[-1] == {"phase": "done", "total": 2}
    assert lines[3]["summary"] == f"indexed notes.txt ({len(PAYLOAD)} bytes)"
    assert (tmp_path / "uploads" / "notes.txt").read_bytes() == PAYLOAD


def test_a_failing_file_is_reported_and_the_others_still_run(make_client):
    def picky(paths, home):
        if paths[0].suffix == ".bad":
            raise ValueError("cannot read this format")
        return "ok"

    client = make_client(ingest=picky)
    files = [("files", ("a.bad", b"x")), ("files", ("b.txt", b"y"))]
    lines = _lines(client.post("/acrag/upload", files=files))
    phases = [(line["phase"], line.get("file")) for line in lines]
    assert ("error", "a.bad") in phases and ("indexed", "b.txt") in phases
    assert next(line for line in lines if line["phase"] == "error")["message"] == (
        "cannot read this format"
    )


def test_upload_rejects_empty_and_oversized_requests(make_client):
    client = make_client(max_upload_mb=0.001)
    assert client.post("/acrag/upload", data={"x": "1"}).status_code == 400
    response = client.post("/acrag/upload", files={"files": ("big.txt", b"x" * 5000)})
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("notes.txt", "notes.txt"),
        ("../../etc/passwd", "passwd"),
        ("C:\\x\\doc.pdf", "doc.pdf"),
        ("a<b>.txt", "a_b_.txt"),
    ],
)
def test_safe_name_strips_directories_and_odd_characters(given, expected):
    assert safe_name(given) == expected


@pytest.mark.parametrize("given", ["", "..", "/", None])
def test_safe_name_refuses_empty_names(given):
    with pytest.raises(ValueError):
        safe_name(given)
