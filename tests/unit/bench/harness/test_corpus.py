import json

import pytest

from bench.harness.corpus import build_corpus, dedupe, gold_to_drop, prepare_home, read_extra
from bench.harness.data import BenchPassage, Question, load_questions, web_passages


def question(qid, passages, meta=None):
    return Question(
        id=qid,
        dataset="d",
        hop="multi",
        question=f"q{qid}?",
        answers=("a",),
        passages=tuple(passages),
        meta=meta or {},
    )


P1 = BenchPassage("Paris", "Paris is the capital of France.", gold=True)
P2 = BenchPassage("Berlin", "Berlin is the capital of Germany.")
P3 = BenchPassage("Rome", "Rome is the capital of Italy.", gold=True)


def test_dedupe_by_title_and_text_keeps_gold_mark():
    same_text_other_title = BenchPassage("Paris (city)", P1.text)
    passages = [
        BenchPassage("Paris", "Paris  is the capital of France."),
        P2,
        P1,
        same_text_other_title,
        BenchPassage("Empty", " . "),
    ]
    kept = dedupe(passages)
    assert [p.title for p in kept] == ["Paris", "Berlin", "Paris (city)"]
    assert kept[0].gold is True  # gold in one question, distractor in another: gold
    assert kept[0].text == "Paris  is the capital of France."  # the first copy's text


def test_corpus_is_the_union_of_questions_passages():
    corpus = build_corpus([question("1", [P1, P2]), question("2", [P2, P3])])
    assert {p.title for p in corpus.local} == {"Paris", "Berlin", "Rome"}
    assert len(corpus.local) == 3
    assert {p.title for p in corpus.web} == {"Paris", "Rome"}  # the web holds the gold


def test_drop_gold_is_deterministic_nested_and_sized():
    gold = [BenchPassage(f"t{i}", f"text {i}", gold=True) for i in range(20)]
    others = [BenchPassage(f"o{i}", f"other {i}") for i in range(5)]
    quarter = gold_to_drop(gold + others, 0.25, seed=1)
    half = gold_to_drop(gold + others, 0.5, seed=1)
    assert len(quarter) == 5 and len(half) == 10
    assert quarter < half
    assert gold_to_drop(gold, 0.5, seed=1) == half
    assert gold_to_drop(gold, 0.5, seed=2) != half
    assert not {p.key for p in others} & half
    with pytest.raises(ValueError):
        gold_to_drop(gold, 1.5, seed=0)


def test_dropped_gold_leaves_local_but_stays_on_the_web():
    corpus = build_corpus([question("1", [P1, P2, P3])], drop_share=0.5, seed=0)
    assert corpus.dropped == 1
    assert len(corpus.local) == 2
    assert P2 in corpus.local
    assert {p.title for p in corpus.web} == {"Paris", "Rome"}
    full = build_corpus([question("1", [P1, P2, P3])])
    assert corpus.digest() != full.digest()


def test_web_knowledge_from_meta():
    meta = {
        "s_wiki_title": "Gianni Lonzi",
        "crag_web_search_knowledge": "Gianni Lonzi: born in Florence. ; Gianni Lonzi: a "
        "water polo player. ; no title here",
    }
    q = question("p", [BenchPassage("CRAG knowledge", "Local text about Lonzi.")], meta)
    found = web_passages(q)
    assert [p.title for p in found] == ["Gianni Lonzi", "Gianni Lonzi", "Gianni Lonzi"]
    assert found[0].text == "born in Florence."
    assert found[2].text == "no title here"
    corpus = build_corpus([q])
    assert [p.title for p in corpus.local] == ["CRAG knowledge"]
    assert len(corpus.web) == 3


def test_prepare_home_ingests_once_per_corpus(tmp_path):
    calls = []

    def fake_ingest(jsonl, home, collection):
        rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
        calls.append((collection, len(rows)))

    corpus = build_corpus([question("1", [P1, P2])])
    home = prepare_home(corpus, tmp_path, ingest=fake_ingest)
    again = prepare_home(corpus, tmp_path, ingest=fake_ingest)
    assert home == again == tmp_path / corpus.digest()
    assert calls == [("documents", 2), ("web", 1)]
    assert json.loads((home / "ready.json").read_text())["local"] == 2


def test_load_questions_limit_and_extra(tmp_path):
    path = tmp_path / "x.dev.jsonl"
    rows = [
        {
            "id": str(i),
            "dataset": "x",
            "hop": "single",
            "question": f"q{i}",
            "answers": ["a"],
            "passages": [{"title": "T", "text": f"t{i}", "is_supporting": True}],
        }
        for i in range(4)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert [q.id for q in load_questions([path], limit=2)] == ["0", "1"]
    assert load_questions([path])[3].passages[0].gold is True
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps({"title": "E", "text": "extra"}) + "\n")
    assert read_extra([extra]) == [BenchPassage("E", "extra")]
