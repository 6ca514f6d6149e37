"""Peak memory of indexing one long single-line file, by `acrag ingest` and by an upload.

Writes a file of `--mb` MB on one line with no sentence break (the shape that once drove an
upload to 3.5 GB), then reports the peak resident set size (RSS) of:
- `acrag ingest FILE` in a fresh process (`ru_maxrss` read by a small launcher), and
- `acrag serve` around `POST /acrag/upload` of the same file (`VmHWM` in /proc/<pid>/status).

    .venv/bin/python -m bench.suites.ingest_memory [--mb 20] [--shape blob|words] [--chunk-only]

"words" is many chunks to embed (slow on a busy machine); "blob" is one 20 MB hex word, few
tokens, so the run measures reading, cutting and storing rather than the embedding model.
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

__all__ = ["chunk_peak_mb", "ingest_peak_mb", "serve_peak_mb", "write_long_line"]

REPO = Path(__file__).resolve().parents[2]
_WORDS = "harbour lantern granite beacon keeper tide shoal fog signal channel reef".split()


def write_long_line(path: Path, mb: float, *, shape: str = "blob", seed: int = 0) -> Path:
    """Write `mb` MB on one line: words without a sentence break, or one hex "word" (blob)."""
    rng = random.Random(seed)
    target = int(mb * 2**20)
    if shape == "blob":  # one word of 20 MB: no space, no punctuation
        path.write_text(rng.randbytes(target // 2).hex(), encoding="ascii")
        return path
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < target:
            piece = (" ".join(rng.choice(_WORDS) for _ in range(2000)) + " ")[: target - written]
            out.write(piece)
            written += len(piece)
    return path


_PEAK_OF = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n"
)
"""Runs a command and prints its `ru_maxrss` (KiB) and exit code, as `/usr/bin/time` does.

Linux starts a child's `ru_maxrss` at the resident size of the process it was forked from
(and keeps it across `exec`), so a child forked straight from a large process (a pytest
worker holding models: 4.7 GB) reports that process's size, not its own. Forked from this
small launcher instead, the figure is the command's own peak (plus at most the launcher's
few MB).
"""


def ingest_peak_mb(path: Path, home: Path) -> tuple[float, int]:
    """Run `acrag ingest path` in a child; return its peak RSS in MB and its exit code."""
    command = [sys.executable, "-m", "app.cli", "--home", str(home), "ingest", "--no-progress"]
    launcher = [sys.executable, "-I", "-c", _PEAK_OF]
    done = subprocess.run(
        [*launcher, *command, str(path)], cwd=REPO, capture_output=True, text=True, check=True
    )
    peak_kib, code = done.stdout.split()
    return int(peak_kib) / 1024, int(code)


def chunk_peak_mb(path: Path) -> tuple[float, float, int, int]:
    """Chunk `path` in this process; return baseline and peak RSS (MB), chunks, longest chunk."""
    import resource

    from stores.chunking import minilm_token_counter
    from stores.ingest import chunk_source
    from stores.loaders import load_source

    minilm_token_counter(["warm up"])  # the tokenizer's own memory belongs to the baseline
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    chunks = chunk_source(
        load_source(path), chunk_tokens=200, overlap=40, count_tokens=minilm_token_counter
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return base, peak, len(chunks), max(len(c.text) for c in chunks)


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc")


def serve_peak_mb(path: Path, home: Path, log: Path) -> tuple[float, float, list[dict]]:
    """Upload `path` to a fresh `acrag serve`; return its peak RSS before and after, and lines."""
    from bench.suites.load import start_server

    server, url = start_server(home, demo=False, log=log)
    try:
        before = _vm_hwm_mb(server.pid)
        with path.open("rb") as body:
            files = {"files": (path.name, body, "text/plain")}
            response = httpx.post(f"{url}/acrag/upload", files=files, timeout=1800)
        lines = [json.loads(line) for line in response.text.splitlines() if line.strip()]
        return before, _vm_hwm_mb(server.pid), lines
    finally:
        server.terminate()
        server.wait(60)


def main(argv: list[str] | None = None) -> int:
    """Print both peaks for a `--mb` MB single-line file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--shape", choices=["blob", "words"], default="blob")
    parser.add_argument("--chunk-only", action="store_true", help="measure chunking alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = write_long_line(folder / "long-line.txt", args.mb, shape=args.shape)
        if args.chunk_only:
            base, peak, count, longest = chunk_peak_mb(path)
            sys.stdout.write(
                f"chunking: peak RSS {peak:.0f} MB (baseline {base:.0f} MB), {count} chunks, "
                f"longest {longest} characters\n"
            )
            return 0
        start = time.perf_counter()
        peak, code = ingest_peak_mb(path, folder / "home-ingest")
        took = time.perf_counter() - start
        sys.stdout.write(f"acrag ingest: exit {code}, peak RSS {peak:.0f} MB, {took:.0f} s\n")
        start = time.perf_counter()
        before, after, lines = serve_peak_mb(path, folder / "home-serve", folder / "serve.log")
        took = time.perf_counter() - start
        outcome = [line.get("phase") for line in lines][-2:]
        peaks = f"peak RSS {before:.0f} MB before, {after:.0f} MB after"
        sys.stdout.write(f"upload: {peaks}, {outcome}, {took:.0f} s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
