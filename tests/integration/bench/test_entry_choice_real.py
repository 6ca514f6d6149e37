"""The entry-choice check with the real scorers (MiniLM, the trained evaluator) on real text."""

import json

import pytest

from bench.suites.entry_choice import main

pytestmark = pytest.mark.integration

HELP = """Usage: grep [OPTION]... PATTERNS [FILE]...

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context

Output control:
  -c, --count               print only a count of selected lines per FILE
  -l, --files-with-matches  print only names of FILEs with selected lines
"""


def test_every_scorer_ranks_the_entries_of_a_real_help_text(tmp_path, capsys):
    docs = tmp_path / "set" / "docs"
    docs.mkdir(parents=True)
    (docs / "grep-help.txt").write_text(HELP)
    question = {
        "id": "q1",
        "question": "How can I see only the names of the files that match?",
        "answers": ["-l", "--files-with-matches"],
    }
    (tmp_path / "set" / "dev.jsonl").write_text(json.dumps(question) + "\n")
    out = tmp_path / "entries.json"
    assert (
        main(["--set", str(tmp_path / "set"), "--work", str(tmp_path / "home"), "--out", str(out)])
        == 0
    )
    result = json.loads(out.read_text())
    assert result["gold_entry_listed"] == 1
    (detail,) = result["questions"]
    assert detail["entries"] == 5
    # an easy case: the entry shares the question's words ("names", "files")
    assert detail["ranks"]["bm25"] == 0 and detail["ranks"]["dense"] == 0
    assert set(result["scorers"]) == {"listed", "bm25", "dense", "evaluator"}
    assert all(0 <= rank < 5 for rank in detail["ranks"].values())
