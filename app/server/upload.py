"""Document upload: save the files under `<home>/uploads`, index them one by one, report each.

Files stream into a staging folder of their own (a file over the limit ends the request at
once), then move into `uploads/`. The response streams one JSON object per line: `saved` per
file, then per file `indexing` and its own outcome (`indexed`, `unchanged`, `skipped` with the
reason, or `error`), and `done` with the counts. A skipped or failed file is deleted again;
no line names a server path.
"""

import asyncio
import logging
import os
import re
import shutil
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from app.server.encoding import dumps, public_message
from app.server.errors import RequestError
from app.server.limits import ServerLimits
from app.server.multipart import StagedFile, receive_files
from stores.home import acrag_home
from stores.loaders import SUPPORTED_NAMES, is_supported

__all__ = ["IngestFn", "Outcome", "real_ingest", "safe_name", "upload"]

logger = logging.getLogger(__name__)

MAX_NAME_BYTES = 180
"""Longest saved file name in UTF-8 bytes (file systems allow 255)."""
_UNSAFE = re.compile(r"[^\w.\- ]+")
_STAGING = ".incoming"


@dataclass(frozen=True)
class Outcome:
    """What indexing one file did."""

    status: Literal["indexed", "unchanged", "skipped"]
    detail: str
    """A one-line summary (indexed, unchanged) or the reason (skipped); no server paths."""


IngestFn = Callable[[Path, Path], Outcome]
"""Index one file into the home's index and say what happened (blocking)."""


def real_ingest(path: Path, home: Path) -> Outcome:
    """Index `path` with `stores.ingest.ingest` and report its own outcome."""
    from stores.ingest import ingest  # imported late: it loads the embedding model

    report = ingest([path], home=home, progress=False)
    if report.skipped:
        return Outcome("skipped", public_message(report.skipped[0][1]))
    if not (report.added or report.removed):
        return Outcome("unchanged", f"already indexed ({report.unchanged} chunk(s))")
    return Outcome("indexed", f"{report.added} chunk(s) added, {report.removed} removed")


def _truncate(text: str, max_bytes: int) -> str:
    return text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")


def safe_name(filename: str | None) -> str:
    """Return a file name without directories or odd characters, or raise ValueError.

    Long names are shortened in the middle of the stem, so the extension (which decides how
    the file is read) survives.
    """
    base = Path((filename or "").replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    if not cleaned:
        raise ValueError(f"unusable file name {filename!r}")
    if len(cleaned.encode("utf-8")) <= MAX_NAME_BYTES:
        return cleaned
    suffix = _truncate(Path(cleaned).suffix, 16)
    stem = _truncate(cleaned[: len(cleaned) - len(Path(cleaned).suffix)], MAX_NAME_BYTES - 16)
    return (stem.rstrip(" .") or "file") + suffix


def _line(**data: Any) -> bytes:
    return (dumps(data) + "\n").encode()


def _place(staged: list[StagedFile], uploads: Path) -> list[tuple[Path, int]]:
    """Move staged files to their final names under `uploads` (atomic renames)."""
    placed = []
    for file in staged:
        target = uploads / safe_name(file.filename)
        os.replace(file.path, target)
        placed.append((target, file.size))
    return placed


def _index_one(path: Path, home: Path, ingest: IngestFn) -> Outcome:
    if not is_supported(path):
        why = f"unsupported file type {path.suffix or '(none)'!r}: {SUPPORTED_NAMES}"
        return Outcome("skipped", why)
    return ingest(path, home)


async def _progress(
    saved: list[tuple[Path, int]], home: Path, ingest: IngestFn, lock: asyncio.Lock
) -> AsyncIterator[bytes]:
    total = len(saved)
    counts = {"indexed": 0, "unchanged": 0, "skipped": 0, "failed": 0}
    for path, size in saved:
        yield _line(phase="saved", file=path.name, bytes=size, total=total)
    for index, (path, _) in enumerate(saved, start=1):
        yield _line(phase="indexing", file=path.name, index=index, total=total)
        place = {"file": path.name, "index": index, "total": total}
        try:
            async with lock:  # waits on the event loop, not in a worker thread
                outcome = await asyncio.to_thread(_index_one, path, home, ingest)
        except Exception as error:  # noqa: BLE001 - reported per file, the others still run
            logger.exception("indexing %s failed", path)
            counts["failed"] += 1
            await asyncio.to_thread(path.unlink, missing_ok=True)
            yield _line(phase="error", **place, message=public_message(str(error)))
            continue
        counts[outcome.status] += 1
        if outcome.status == "skipped":
            await asyncio.to_thread(path.unlink, missing_ok=True)
            yield _line(phase="skipped", **place, reason=outcome.detail, summary=outcome.detail)
        else:
            yield _line(phase=outcome.status, **place, summary=outcome.detail)
    yield _line(phase="done", total=total, **counts)


def _check_names(staged: list[StagedFile]) -> None:
    """Raise ValueError for an unusable name, or two files that would be saved as one."""
    seen: dict[str, str] = {}
    for file in staged:
        name = safe_name(file.filename)
        if name in seen:
            first = seen[name]
            raise ValueError(
                f"{first!r} and {file.filename!r} would both be saved as {name!r}: rename one"
            )
        seen[name] = file.filename


async def _receive(request: Request, home: Path, limits: ServerLimits) -> list[tuple[Path, int]]:
    uploads = home / "uploads"
    staging = uploads / _STAGING / uuid.uuid4().hex
    await asyncio.to_thread(staging.mkdir, parents=True, exist_ok=True)
    try:
        staged = await receive_files(
            request,
            staging,
            max_bytes=int(limits.max_upload_mb * 2**20),
            max_files=limits.max_upload_files,
        )
        if not staged:
            raise RequestError("send one or more `files`", status=400)
        _check_names(staged)  # refuse the whole request before anything moves
        return await asyncio.to_thread(_place, staged, uploads)
    finally:
        await asyncio.to_thread(shutil.rmtree, staging, ignore_errors=True)


async def upload(request: Request) -> Response:
    """Accept multipart `files`, then stream each file's indexing outcome as JSON lines."""
    home: Path = request.app.state.home or await asyncio.to_thread(acrag_home)
    try:
        saved = await _receive(request, home, request.app.state.limits)
    except RequestError as error:
        return JSONResponse({"detail": str(error)}, status_code=error.status)
    except ValueError as error:
        return JSONResponse({"detail": str(error)}, status_code=400)
    return StreamingResponse(
        _progress(saved, home, request.app.state.ingest, request.app.state.ingest_lock),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
