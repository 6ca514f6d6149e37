"""Load against `acrag serve` on loopback: concurrent conversations, no errors, no leaks.

CI runs smaller counts; the full 8 x 20 with the real graph is `python -m bench.suites.load`.
"""

from pathlib import Path

import pytest

from bench.suites.load import index_sample, run_load, start_server


def _serve(tmp_path: Path, *, demo: bool):
    home = tmp_path / "home"
    if not demo:
        index_sample(home)
    return start_server(home, demo=demo, log=tmp_path / "serve.log")


@pytest.mark.parametrize(("demo", "threads", "questions"), [(True, 8, 3), (False, 3, 2)])
def test_concurrent_conversations_have_no_errors_and_no_leaks(
    tmp_path: Path, demo: bool, threads: int, questions: int
) -> None:
    server, url = _serve(tmp_path, demo=demo)
    try:
        report = run_load(url, threads=threads, questions=questions)
    finally:
        server.terminate()
        server.wait(30)
    summary = report.summary()
    print(summary)  # noqa: T201 - the measured latencies, for the CI log
    assert report.errors == [] and report.leaks == []
    assert summary["runs"] == threads * questions
