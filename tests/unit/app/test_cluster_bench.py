"""The cluster benchmark resumes: rows already recorded are reported, not measured again."""

import json

from app.server import cluster_bench


def test_recorded_rows_are_reported_without_measuring(tmp_path, monkeypatch, capsys):
    out = tmp_path / "records.jsonl"
    row = {"runs": 2, "errors": 0, "leaks": 0, "p50_s": 1.0, "p95_s": 2.0, "max_s": 2.0}
    row |= {"wall_s": 3.0, "runs_per_min": 40.0, "load_min": 1.0, "load_max": 2.5}
    out.write_text(
        json.dumps({"workers": 1, **row}) + "\n" + json.dumps({"workers": "acrag serve", **row})
    )
    measured = []
    monkeypatch.setattr(cluster_bench, "_measure", lambda _a, count, *_: measured.append(count))
    monkeypatch.setattr(cluster_bench, "index_sample", lambda home: measured.append("index"))
    code = cluster_bench.main(["--workers", "1", "--baseline", "--out", str(out)])
    assert (code, measured) == (0, [])
    table = capsys.readouterr().out
    assert "| 1 | 2 | 0 | 1.0 | 2.0 | 2.0 | 3.0 | 40.0 | 1.0-2.5 |" in table
    assert "| acrag serve |" in table


def test_only_the_missing_row_is_measured(tmp_path, monkeypatch):
    out = tmp_path / "records.jsonl"
    out.write_text(json.dumps({"workers": 1, "errors": 0, "leaks": 0}) + "\n")
    measured = []

    def measure(_args, count, *_rest):
        measured.append(count)
        return {"workers": count, "errors": 1, "leaks": 0}

    monkeypatch.setattr(cluster_bench, "_measure", measure)
    monkeypatch.setattr(cluster_bench, "index_sample", lambda home: None)
    monkeypatch.setattr(cluster_bench, "_table", lambda rows: None)
    assert cluster_bench.main(["--workers", "1,2", "--out", str(out)]) == 1  # the error counts
    assert measured == [2]
