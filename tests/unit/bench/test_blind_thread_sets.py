"""The blind sets threads5, threads6 and threads7: counts, the fixed split, answers in their
documents, unanswerable turns."""

import json
from collections import Counter
from dataclasses import dataclass

import pytest

from bench.datasets.check import check_conversations
from bench.datasets.conversations import CORPORA, THREAD_SETS, load_conversations

KINDS = {"person", "place", "thing", "event", "ellipsis", "switch", "meta"}


@dataclass(frozen=True)
class Shape:
    name: str
    prefix: str
    conversations: int
    turns: dict[int, int]
    """How many conversations have each number of turns."""
    unanswerable: dict[str, int]
    """Unanswerable turns in each half."""


SHAPES = [
    Shape("threads5", "t5", 68, {4: 68}, {"dev": 6, "test": 4}),
    Shape("threads6", "t6", 66, {4: 58, 3: 8}, {"dev": 5, "test": 5}),
    Shape("threads7", "t7", 66, {4: 60, 3: 6}, {"dev": 5, "test": 5}),
]


def _documents(name: str) -> str:
    files = sorted(CORPORA[name].glob("*.md"))
    assert len(files) == 6
    return " ".join(" ".join(f.read_text(encoding="utf-8").split()) for f in files).lower()


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_the_set_has_its_conversations_split_in_halves(shape):
    conversations = load_conversations(THREAD_SETS[shape.name])
    half = shape.conversations // 2
    assert len(conversations) == shape.conversations
    assert {c.corpus for c in conversations} == {shape.name}
    assert Counter(len(c.turns) for c in conversations) == shape.turns
    assert Counter(c.split for c in conversations) == {"dev": half, "test": half}
    numbers = range(1, shape.conversations + 1)
    assert [c.id for c in conversations] == [f"{shape.prefix}-{n:03d}" for n in numbers]
    assert {t.kind for c in conversations for t in c.turns[1:]} == KINDS
    assert check_conversations(THREAD_SETS[shape.name]).ok


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_every_answer_occurs_verbatim_in_the_documents(shape):
    text = _documents(shape.name)
    conversations = load_conversations(THREAD_SETS[shape.name])
    answers = [a for c in conversations for t in c.turns for a in t.answers]
    assert answers and all(" ".join(a.lower().split()) in text for a in answers)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_unanswerable_turns_are_last_and_without_answers(shape):
    path = THREAD_SETS[shape.name]
    conversations = load_conversations(path)
    unsaid = [(c, i) for c in conversations for i, t in enumerate(c.turns) if t.unanswerable]
    assert Counter(c.split for c, _ in unsaid) == shape.unanswerable
    assert all(i == len(c.turns) - 1 and not c.turns[i].answers for c, i in unsaid)
    assert all(t.answers for c in conversations for t in c.turns if not t.unanswerable)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    flags = [t["unanswerable"] for r in rows for t in r["turns"] if "unanswerable" in t]
    assert flags == [True] * len(unsaid)
