"""Receive multipart uploads straight to disk, checking each file's size as its bytes arrive.

Starlette's form parser spools every file to a temporary file first and knows nothing of a
per-file limit, so an oversized upload was written out whole before being refused. Here each
`files` part goes to its own file in a staging folder, and the request is refused the moment
one file passes the limit; the caller deletes the staging folder either way.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from app.server.errors import RequestError

__all__ = ["StagedFile", "receive_files"]

_MAX_FIELD_BYTES = 64 * 1024


@dataclass
class StagedFile:
    """One received file: the client's name for it and where its bytes are."""

    filename: str
    path: Path
    size: int = 0


@dataclass
class _Receiver:
    """The parser callbacks: route each part's bytes to its staging file or drop them."""

    staging: Path
    max_bytes: int
    max_files: int
    files: list[StagedFile] = field(default_factory=list)
    _header: bytes = b""
    _value: bytes = b""
    _disposition: bytes = b""
    _out: IO[bytes] | None = None
    _field_bytes: int = 0
    ended: bool = False
    """The closing boundary arrived: without it the last file may be cut short."""

    def on_end(self) -> None:
        self.ended = True

    def on_part_begin(self) -> None:
        self._disposition, self._out, self._field_bytes = b"", None, 0

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        if self._header.lower() == b"content-disposition":
            self._disposition = self._value
        self._header, self._value = b"", b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._disposition)
        if options.get(b"name") != b"files" or b"filename" not in options:
            return  # another field: its bytes are counted and dropped
        if len(self.files) >= self.max_files:
            raise RequestError(f"send at most {self.max_files} files at once", status=400)
        name = options[b"filename"].decode("utf-8", errors="replace")
        staged = StagedFile(name, self.staging / f"{len(self.files):03d}")
        self.files.append(staged)
        self._out = staged.path.open("wb")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._out is None:
            self._field_bytes += end - start
            if self._field_bytes > _MAX_FIELD_BYTES:
                raise RequestError("a form field is larger than 64 KB", status=400)
            return
        staged = self.files[-1]
        staged.size += end - start
        if staged.size > self.max_bytes:
            raise RequestError(
                f"{staged.filename}: larger than {self.max_bytes / 2**20:g} MB", status=413
            )
        self._out.write(data[start:end])

    def on_part_end(self) -> None:
        self.close()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


def _boundary(content_type: str) -> bytes:
    media, params = parse_options_header(content_type)
    if media != b"multipart/form-data" or b"boundary" not in params:
        raise RequestError("send one or more `files` as multipart/form-data", status=400)
    return params[b"boundary"]


async def receive_files(
    request: Request, staging: Path, *, max_bytes: int, max_files: int
) -> list[StagedFile]:
    """Stream the request's `files` parts into `staging`, one file each.

    Raises:
        RequestError: A file over `max_bytes` (413); not multipart, too many files,
            malformed or unfinished data (400).
    """
    receiver = _Receiver(staging, max_bytes, max_files)
    callbacks: Any = {
        name: getattr(receiver, name)
        for name in (
            "on_part_begin",
            "on_part_data",
            "on_part_end",
            "on_header_field",
            "on_header_value",
            "on_header_end",
            "on_headers_finished",
            "on_end",
        )
    }
    parser = MultipartParser(_boundary(request.headers.get("content-type", "")), callbacks)
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
        if not receiver.ended:
            raise RequestError("the multipart body ends without its closing boundary", status=400)
    except FormParserError as error:
        raise RequestError(f"malformed multipart data: {error}", status=400) from error
    finally:
        receiver.close()
    return receiver.files
