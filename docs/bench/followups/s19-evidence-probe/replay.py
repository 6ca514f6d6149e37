"""Replay the probes' picks (no model, no index).

`python replay.py probe.jsonl` for the evidence switch, `python replay.py --salience OLD.jsonl
NEW.jsonl` for the salience trial.
"""

import json
import sys
from collections import Counter
from pathlib import Path

TUNE = {"threads2", "threads3", "threads4", "threads5", "threads6"}
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)


def _say(*parts: object) -> None:
    sys.stdout.write(" ".join(map(str, parts)) + "\n")


def _rows(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def switched(rows: list[dict], margin: float) -> tuple[int, int]:
    """Return (won, lost) when the best-evidence referent replaces the chosen one by > margin."""
    won = lost = 0
    for row in rows:
        scored = {x["option"]: x for x in row["scored"]}
        chosen = scored.get(row["chosen"])
        if chosen is None:
            continue
        best = max(row["scored"], key=lambda x: x["evidence"])
        if best is chosen or best["evidence"] - chosen["evidence"] <= margin:
            continue
        won += best["ok"] and not chosen["ok"]
        lost += chosen["ok"] and not best["ok"]
    return won, lost


def evidence(path: str) -> None:
    """Report the evidence switch at each margin, on the tuning and the check part."""
    rows = _rows(path)
    parts = {
        "tune": [r for r in rows if r["set"] in TUNE],
        "check": [r for r in rows if r["set"] not in TUNE],
    }
    for name, part in parts.items():
        chosen = sum(x["ok"] for r in part for x in r["scored"] if x["option"] == r["chosen"])
        some = sum(any(x["ok"] for x in r["scored"]) for r in part)
        best = sum(max(r["scored"], key=lambda x: x["evidence"])["ok"] for r in part if r["scored"])
        _say(
            f"{name}: {len(part)} turns, chosen right {chosen}, some option right {some}, "
            f"best evidence right {best}"
        )
    for margin in MARGINS:
        _say(margin, {name: switched(part, margin) for name, part in parts.items()})


def salience(old_path: str, new_path: str) -> None:
    """Report where the trial's salience picks differ from main's, and the net change."""
    old, new = _rows(old_path), _rows(new_path)
    agree = sum(r["ok"] == r["record_ok"] for r in old)
    _say(f"{len(old)} turns; the replay agrees with the records on {agree}")
    net: Counter[str] = Counter()
    for a, b in zip(old, new, strict=True):
        if a["pick"] != b["pick"]:
            net[a["set"]] += int(b["ok"]) - int(a["ok"])
            _say(a["set"], a["turn"], "|", a["question"], "->", b["question"])
    _say(dict(net), "net", sum(net.values()))


if __name__ == "__main__":
    if sys.argv[1] == "--salience":
        salience(sys.argv[2], sys.argv[3])
    else:
        evidence(sys.argv[1])
