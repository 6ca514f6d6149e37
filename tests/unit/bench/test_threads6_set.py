"""The threads6 set: counts, the fixed 33/33 split, answers in its documents, unanswerable turns."""

import json
from collections import Counter

from bench.datasets.check import check_conversations
from bench.datasets.conversations import CORPORA, THREADS6_FILE, load_conversations

KINDS = {"person", "place", "thing", "event", "ellipsis", "switch", "meta"}


def _documents() -> str:
    files = sorted(CORPORA["threads6"].glob("*.md"))
    assert len(files) == 6
    return " ".join(" ".join(f.read_text(encoding="utf-8").split()) for f in files).lower()


def test_threads6_has_66_conversations_of_three_or_four_turns_split_33_33():
    conversations = load_conversations(THREADS6_FILE)
    assert len(conversations) == 66
    assert {c.corpus for c in conversations} == {"threads6"}
    assert Counter(len(c.turns) for c in conversations) == {4: 58, 3: 8}
    assert Counter(c.split for c in conversations) == {"dev": 33, "test": 33}
    assert [c.id for c in conversations] == [f"t6-{n:03d}" for n in range(1, 67)]
    assert {t.kind for c in conversations for t in c.turns[1:]} == KINDS
    assert check_conversations(THREADS6_FILE).ok


def test_every_threads6_answer_occurs_verbatim_in_its_documents():
    text = _documents()
    answers = [a for c in load_conversations(THREADS6_FILE) for t in c.turns for a in t.answers]
    assert answers and all(" ".join(a.lower().split()) in text for a in answers)


def test_threads6_unanswerable_turns_are_last_and_without_answers():
    conversations = load_conversations(THREADS6_FILE)
    unsaid = [(c, i) for c in conversations for i, t in enumerate(c.turns) if t.unanswerable]
    assert len(unsaid) == 10
    assert Counter(c.split for c, _ in unsaid) == {"dev": 5, "test": 5}
    assert all(i == len(c.turns) - 1 and not c.turns[i].answers for c, i in unsaid)
    answered = [t for c in conversations for t in c.turns if not t.unanswerable]
    assert all(t.answers for t in answered)
    rows = [json.loads(line) for line in THREADS6_FILE.read_text(encoding="utf-8").splitlines()]
    flags = [t["unanswerable"] for r in rows for t in r["turns"] if "unanswerable" in t]
    assert flags == [True] * 10
