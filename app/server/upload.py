"""Document upload: save the files under `<home>/uploads`, index them one by one, report progress.

The response streams one JSON object per line (`saved`, `indexing`, `indexed`, `error`,
`done`), so the page can show a progress bar while the blocking ingestion runs in a worker
thread.
"""

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from app.server.encoding import dumps
from stores.home import acrag_home

__all__ = ["IngestFn", "MAX_UPLOAD_MB", "real_ingest", "safe_name", "upload"]

logger = logging.getLogger(__name__)

MAX_UPLOAD_MB = 20.0
MAX_FILES = 20
_UNSAFE = re.compile(r"[^\w.\- ]+")

IngestFn = Callable[[list[Path], Path], str]
"""Index the files into the home's index and return a one-line summary (blocking)."""


def real_ingest(paths: list[Path], home: Path) -> str:
    """Index `paths` with `stores.ingest.ingest` and return its summary."""
    from stores.ingest import ingest  # imported late: it loads the embedding model

    report = ingest(paths, home=home, progress=False)
    problems = [f"{path}: {reason}" for path, reason in report.skipped]
    return report.summary() + ("" if not problems else " | skipped " + "; ".join(problems))


def safe_name(filename: str | None) -> str:
    """Return a file name without directories or odd characters, or raise ValueError."""
    base = Path((filename or "").replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    if not cleaned:
        raise ValueError(f"unusable file name {filename!r}")
    return cleaned[:120]


def _line(**data: Any) -> bytes:
    return (dumps(data) + "\n").encode()


def _write(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_bytes(data)
    return target


async def _save(files: list[UploadFile], folder: Path, max_bytes: int) -> list[tuple[Path, int]]:
    saved = []
    for file in files:
        data = await file.read()
        if len(data) > max_bytes:
            raise ValueError(f"{file.filename}: larger than {max_bytes // 2**20} MB")
        target = await asyncio.to_thread(_write, folder, safe_name(file.filename), data)
        saved.append((target, len(data)))
    return saved


async def _progress(
    saved: list[tuple[Path, int]], home: Path, ingest: IngestFn
) -> AsyncIterator[bytes]:
    total = len(saved)
    paths = [path for path, _ in saved]
    for path, size in saved:
        yield _line(phase="saved", file=path.name, bytes=size, total=total)
    for index, path in enumerate(paths, start=1):
        yield _line(phase="indexing", file=path.name, index=index, total=total)
        try:
            summary = await asyncio.to_thread(ingest, [path], home)
        except Exception as error:  # noqa: BLE001 - reported per file, the others still run
            logger.exception("indexing %s failed", path)
            yield _line(phase="error", file=path.name, index=index, total=total, message=str(error))
            continue
        yield _line(phase="indexed", file=path.name, index=index, total=total, summary=summary)
    yield _line(phase="done", total=total)


async def upload(request: Request) -> Response:
    """Accept multipart `files`, then stream the indexing progress as JSON lines."""
    home: Path = request.app.state.home or await asyncio.to_thread(acrag_home)
    ingest: IngestFn = request.app.state.ingest
    max_bytes = int(request.app.state.max_upload_mb * 2**20)
    async with request.form(max_files=MAX_FILES, max_part_size=max_bytes) as form:
        files = [item for item in form.getlist("files") if isinstance(item, UploadFile)]
        if not files:
            return JSONResponse({"detail": "send one or more `files`"}, status_code=400)
        try:
            saved = await _save(files, home / "uploads", max_bytes)
        except ValueError as error:
            return JSONResponse({"detail": str(error)}, status_code=400)
    return StreamingResponse(
        _progress(saved, home, ingest),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
