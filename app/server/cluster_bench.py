"""Throughput and latency of 1, 2, 4 cluster workers under a bounded load on loopback.

For each worker count, starts `app.server.cluster` (PostgreSQL, Redis, the workers) in a fresh
data directory, warms each worker with one question, then runs `--threads` conversations of
`--questions` questions at once (`app.server.cluster_load`), conversation i starting on worker
i mod N. Reports p50/p95/max run latency (request to the stream's last event) and runs per
minute, one JSON line per worker count, then a Markdown table.

The real graph (default) answers over the sample corpus, indexed into a fresh data directory.
With `--llm-server MODEL`, each cluster also gets one model server (`app.server.llm_server`,
started afresh per worker count) that every worker's graph uses for every role; `--baseline`
then measures `acrag serve` (one process, the same MODEL in-process for every role) under the
same load, after the clusters. `--out FILE` appends each row as a JSON line and skips the rows
the file already holds, so an interrupted run resumes. Each row carries the lowest and highest
1-minute load average seen while it ran.

Usage (the cluster's virtualenv runs the workers; this script runs under `.venv`):
    .venv/bin/python -m app.server.cluster_bench --demo [--workers 1,2,4] [--threads 16]
        [--questions 5]
    .venv/bin/python -m app.server.cluster_bench --llm-server qwen2.5-coder-0.5b --baseline
        --threads 4 --questions 2 --out records.jsonl
"""

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.server.cluster import REPO, Cluster, free_port
from app.server.cluster_load import CLUSTER_PYTHON, demo_config, run_load, warm
from app.server.cluster_services import ModelServer
from bench.suites.load import LoadAverage, LoadReport, index_sample, start_server
from bench.suites.load import run_load as run_serve_load

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app.server.cluster_load", description=__doc__)
    parser.add_argument("--workers", default="1,2,4", help="worker counts (default 1,2,4)")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=4, help="concurrent runs per worker")
    parser.add_argument("--demo", action="store_true", help="the model-free demo graph")
    parser.add_argument("--llm-server", metavar="MODEL", help="one shared model server")
    parser.add_argument("--llm-parallel", type=int, default=4, help="its slots (default 4)")
    parser.add_argument("--baseline", action="store_true", help="also acrag serve, in-process")
    parser.add_argument("--out", type=Path, help="JSON lines: append rows, skip rows held")
    parser.add_argument("--python", default=str(CLUSTER_PYTHON), help="the cluster venv's python")
    return parser


def _measure_cluster(args: argparse.Namespace, count: int, tmp: Path, home: Path) -> LoadReport:
    config = demo_config(tmp) if args.demo else REPO / "langgraph.json"
    root = tmp / f"cluster-{count}"
    cluster = Cluster(root, count, python=args.python, config=config, jobs_per_worker=args.jobs)
    cluster.extra_env["ACRAG_HOME"] = str(home)
    if args.llm_server:
        cluster.model_server = ModelServer(
            root / "model",
            free_port(),
            model=args.llm_server,
            parallel=args.llm_parallel,
            python=args.python,
        )
    try:
        with cluster:
            warm(cluster.urls)
            report, _ = run_load(cluster.urls, threads=args.threads, questions=args.questions)
    finally:
        cluster.postgres.remove()
    return report


def _measure_serve(args: argparse.Namespace, tmp: Path, home: Path) -> LoadReport:
    """`acrag serve` with the model in-process for every role; one warm-up question first."""
    roles = ("GENERATOR", "REWRITER", "JUDGE")
    env = {f"ACRAG_{role}_MODEL": args.llm_server for role in roles} if args.llm_server else {}
    server, url = start_server(home, demo=args.demo, log=tmp / "serve.log", env=env)
    try:
        run_serve_load(url, threads=1, questions=1)  # loads the models
        return run_serve_load(url, threads=args.threads, questions=args.questions)
    finally:
        server.terminate()
        server.wait(30)


def _done_rows(out: Path | None) -> dict[str, dict[str, Any]]:
    if out is None or not out.exists():
        return {}
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return {str(row["workers"]): row for row in rows}


def main(argv: Sequence[str] | None = None) -> int:
    """Measure each worker count; print one JSON line per count, then a Markdown table."""
    args = _parser().parse_args(argv)
    counts: list[int | str] = [int(n) for n in args.workers.split(",")]
    counts += ["acrag serve"] if args.baseline else []
    done = _done_rows(args.out)
    rows = {str(c): done[str(c)] for c in counts if str(c) in done}
    todo = [c for c in counts if str(c) not in done]
    with tempfile.TemporaryDirectory(prefix="acrag-cluster-load-") as tmp_name:
        tmp, home = Path(tmp_name), Path(tmp_name) / "home"
        if todo and not args.demo:
            index_sample(home)
        for count in todo:
            rows[str(count)] = _measure(args, count, tmp, home)
    ordered = [rows[str(c)] for c in counts]
    _table(ordered)
    return 1 if any(r["errors"] or r["leaks"] for r in ordered) else 0


def _measure(args: argparse.Namespace, count: int | str, tmp: Path, home: Path) -> dict[str, Any]:
    sampler = LoadAverage()
    sampler.start()
    if isinstance(count, int):
        report = _measure_cluster(args, count, tmp, home)
    else:
        report = _measure_serve(args, tmp, home)
    row = {"workers": count, "jobs_per_worker": args.jobs, "model": args.llm_server}
    row |= {**report.summary(), **sampler.stop()}
    line = json.dumps(row) + "\n"
    sys.stdout.write(line)
    sys.stdout.flush()
    if args.out is not None:
        with args.out.open("a") as out:
            out.write(line)
    for problem in [*report.errors, *report.leaks][:10]:
        sys.stderr.write(problem + "\n")
    return row


def _table(rows: list[dict[str, Any]]) -> None:
    keys = ("workers", "runs", "errors", "p50_s", "p95_s", "max_s", "wall_s", "runs_per_min")
    sys.stdout.write("\n| workers | runs | errors | p50 s | p95 s | max s | wall s | runs/min ")
    sys.stdout.write("| load avg |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        cells = [str(r[k]) for k in keys] + [f"{r.get('load_min')}-{r.get('load_max')}"]
        sys.stdout.write("| " + " | ".join(cells) + " |\n")


if __name__ == "__main__":
    raise SystemExit(main())
