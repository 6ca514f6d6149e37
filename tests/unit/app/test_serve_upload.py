"""Document upload: saved under the home, indexed file by file, progress as JSON lines."""

import json
from pathlib import Path

import pytest

from app.server.limits import ServerLimits
from app.server.upload import Outcome, safe_name

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
    assert lines[-1] == {
        "phase": "done",
        "total": 2,
        "indexed": 2,
        "unchanged": 0,
        "skipped": 0,
        "failed": 0,
    }
    assert lines[3]["summary"] == f"indexed notes.txt ({len(PAYLOAD)} bytes)"
    assert (tmp_path / "uploads" / "notes.txt").read_bytes() == PAYLOAD


def test_a_failing_file_is_reported_and_the_others_still_run(make_client):
    def picky(path, home):
        if path.name == "a.txt":
            raise ValueError("cannot read this format")
        return Outcome("indexed", "ok")

    client = make_client(ingest=picky)
    files = [("files", ("a.txt", b"x")), ("files", ("b.txt", b"y"))]
    lines = _lines(client.post("/acrag/upload", files=files))
    phases = [(line["phase"], line.get("file")) for line in lines]
    assert ("error", "a.txt") in phases and ("indexed", "b.txt") in phases
    assert next(line for line in lines if line["phase"] == "error")["message"] == (
        "cannot read this format"
    )


def test_upload_rejects_empty_and_oversized_requests(make_client):
    client = make_client(limits=ServerLimits(max_upload_mb=0.001))
    assert client.post("/acrag/upload", data={"x": "1"}).status_code == 400  # not multipart
    assert client.post("/acrag/upload", files={"other": ("a.txt", b"x")}).status_code == 400
    response = client.post("/acrag/upload", files={"files": ("big.txt", b"x" * 5000)})
    assert response.status_code == 413 and "big.txt: larger than" in response.json()["detail"]


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


def test_each_file_reports_its_own_outcome_and_only_indexed_files_count(make_client, tmp_path):
    def outcomes(path, home):
        if path.name == "same.txt":
            return Outcome("unchanged", "already indexed (1 chunk(s))")
        if path.name == "empty.txt":
            return Outcome("skipped", "empty file")
        return Outcome("indexed", "1 chunk(s) added, 0 removed")

    client = make_client(ingest=outcomes)
    files = [
        ("files", ("report.docx", b"PK\x03\x04 not really")),
        ("files", ("letter.rtf", b"{\\rtf1 hello}")),
        ("files", ("same.txt", b"kept")),
        ("files", ("empty.txt", b" ")),
        ("files", ("new.md", b"# New")),
        ("files", ("frob.1.gz", b"\x1f\x8b a man page, compressed")),
    ]
    lines = _lines(client.post("/acrag/upload", files=files))
    final = {
        line["file"]: line for line in lines if line["phase"] not in ("saved", "indexing", "done")
    }
    assert {name: line["phase"] for name, line in final.items()} == {
        "report.docx": "skipped",
        "letter.rtf": "skipped",
        "same.txt": "unchanged",
        "empty.txt": "skipped",
        "new.md": "indexed",
        "frob.1.gz": "indexed",
    }
    assert "unsupported file type '.docx'" in final["report.docx"]["reason"]
    assert "man pages" in final["report.docx"]["reason"]  # what would have been taken
    assert lines[-1] == {
        "phase": "done",
        "total": 6,
        "indexed": 2,
        "unchanged": 1,
        "skipped": 3,
        "failed": 0,
    }
    kept = sorted(p.name for p in (tmp_path / "uploads").iterdir() if p.is_file())
    assert kept == ["frob.1.gz", "new.md", "same.txt"]  # rejected files are removed again


def test_an_oversized_file_is_refused_while_streaming_and_nothing_stays_on_disk(
    make_client, tmp_path
):
    client = make_client(limits=ServerLimits(max_upload_mb=0.01))
    files = [("files", ("ok.txt", b"fine")), ("files", ("big.txt", b"x" * 50_000))]
    response = client.post("/acrag/upload", files=files)
    assert response.status_code == 413
    uploads = tmp_path / "uploads"
    assert [p for p in uploads.rglob("*") if p.is_file()] == []


def test_too_many_files_or_too_large_a_request_is_refused(make_client):
    client = make_client(limits=ServerLimits(max_upload_files=2, max_upload_request_mb=0.05))
    three = [("files", (f"{i}.txt", b"x")) for i in range(3)]
    assert client.post("/acrag/upload", files=three).status_code == 400
    big = [("files", ("a.txt", b"x" * 40_000)), ("files", ("b.txt", b"x" * 40_000))]
    assert client.post("/acrag/upload", files=big).status_code == 413


def test_upload_lines_show_no_server_paths(make_client, tmp_path):
    def failing(path, home):
        raise OSError(f"[Errno 5] I/O error: '{path}'")

    client = make_client(ingest=failing)
    lines = _lines(client.post("/acrag/upload", files={"files": ("a.txt", b"x")}))
    text = json.dumps(lines)
    assert str(tmp_path) not in text and "a.txt" in text


def test_long_file_names_keep_their_extension():
    long = "q" * 300 + ".md"
    name = safe_name(long)
    assert name.endswith(".md") and len(name.encode()) <= 180
    wide = "文" * 200 + ".txt"  # three bytes a character: would pass 255 bytes uncut
    assert safe_name(wide).endswith(".txt") and len(safe_name(wide).encode()) <= 180


def test_parallel_uploads_are_indexed_one_at_a_time(make_client):
    import threading
    import time

    running: list[int] = []
    peak: list[int] = [0]

    def counting(path, home):
        running.append(1)
        peak[0] = max(peak[0], len(running))
        time.sleep(0.02)
        running.pop()
        return Outcome("indexed", "ok")

    client = make_client(ingest=counting)
    codes: list[int] = []

    def send(i: int) -> None:
        response = client.post("/acrag/upload", files={"files": (f"{i}.txt", b"x")})
        codes.append(response.status_code)

    workers = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert codes == [200] * 8 and peak[0] == 1


def test_two_files_saved_under_one_name_are_refused_and_nothing_is_saved(client, tmp_path):
    files = [("files", ("a/notes.txt", b"first")), ("files", ("b\\notes.txt", b"second"))]
    response = client.post("/acrag/upload", files=files)
    assert response.status_code == 400
    assert "would both be saved as 'notes.txt'" in response.json()["detail"]
    assert [p for p in (tmp_path / "uploads").rglob("*") if p.is_file()] == []


def test_a_multipart_body_without_its_closing_boundary_is_refused(client, tmp_path):
    body = (
        b'--xyz\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nthe end of this file never comes"
    )
    headers = {"Content-Type": "multipart/form-data; boundary=xyz"}
    response = client.post("/acrag/upload", content=body, headers=headers)
    assert response.status_code == 400 and "closing boundary" in response.json()["detail"]
    assert [p for p in (tmp_path / "uploads").rglob("*") if p.is_file()] == []
    whole = body + b"\r\n--xyz--\r\n"
    assert client.post("/acrag/upload", content=whole, headers=headers).status_code == 200
