"""Stop sequences enforced on streamed text, wrapper-side."""

__all__ = ["StopGuard"]


class StopGuard:
    """Cut streamed text at the first stop sequence, holding back partial matches."""

    def __init__(self, stops: list[str]) -> None:
        self.stops = [stop for stop in stops if stop]
        self.buffer = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        """Add streamed text; return the part that is certainly before any stop sequence."""
        if self.stopped:
            return ""
        self.buffer += text
        cuts = [i for i in (self.buffer.find(stop) for stop in self.stops) if i >= 0]
        if cuts:
            self.stopped = True
            released, self.buffer = self.buffer[: min(cuts)], ""
            return released
        hold = max((self._overlap(stop) for stop in self.stops), default=0)
        released = self.buffer[: len(self.buffer) - hold]
        self.buffer = self.buffer[len(released) :]
        return released

    def flush(self) -> str:
        """Return what is still held back once the stream has ended."""
        released, self.buffer = ("" if self.stopped else self.buffer), ""
        return released

    def _overlap(self, stop: str) -> int:
        for size in range(min(len(stop) - 1, len(self.buffer)), 0, -1):
            if self.buffer.endswith(stop[:size]):
                return size
        return 0
