"""An honest ingestion progress bar: chunks/s embedded, and an ETA from the bytes still unread.

While files are still being read, the number of chunks to embed is not known; the bar's total
is then an estimate (chunks so far scaled by the share of bytes read) and says so. Once every
file is read, the total is exact. By default the bar is drawn only on a terminal: redirected
to a file, its carriage-return redraws would fill the log, and the final report says it all.
"""

from tqdm import tqdm

__all__ = ["IngestProgress"]


class IngestProgress:
    """Counts bytes read and chunks queued and stored; shows chunks/s and an ETA."""

    def __init__(self, *, enabled: bool | None, files: int, total_bytes: int) -> None:
        """Start the bar: drawn always (`enabled` True), never (False) or on a terminal (None)."""
        self.files, self.total_bytes = files, max(total_bytes, 1)
        self.read_files = self.read_bytes = self.queued = 0
        self.bar = tqdm(
            total=None,
            unit="chunk",
            desc="embedding",
            disable=None if enabled is None else not enabled,  # None: tqdm asks isatty()
            smoothing=0.1,
        )

    def read(self, *, size: int, new_chunks: int) -> None:
        """Record one file read: its size in bytes and the chunks it adds."""
        self.read_files += 1
        self.read_bytes += size
        self.queued += new_chunks
        if self.read_files >= self.files:
            self.done_reading()
            return
        share = min(self.read_bytes / self.total_bytes, 1.0)
        estimate = round(self.queued / share) if share else None
        self.bar.total = max(estimate or 0, self.queued, self.bar.n) or None
        self.bar.set_postfix_str(f"files {self.read_files}/{self.files}, total estimated")

    def done_reading(self) -> None:
        """Every file is read: the total is now exact."""
        self.bar.total = self.queued
        self.bar.set_postfix_str(f"files {self.read_files}/{self.files}")

    def stored(self, count: int) -> None:
        """Record `count` chunks embedded and stored."""
        self.bar.update(count)

    @property
    def estimated_total(self) -> int | None:
        """The bar's current total (estimated until every file is read)."""
        return self.bar.total

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()
