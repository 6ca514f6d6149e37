from pathlib import Path

from training.data import build_pairs
from training.hard_eval import doc_neighbours, topic_pairs, topic_report
from training.hard_negatives import (
    MIXED,
    answer_windows,
    answerless,
    build_hard_pairs,
    siblings,
    title_index,
)

GOLD = (
    "The Flash is an American series. The fourth season began airing in 2017. "
    "It ran for 23 episodes on The CW. The show is produced in Vancouver."
)


def _record(question: str, answers: list[str], passages: list[tuple[str, str, bool]]) -> dict:
    return {
        "id": question,
        "dataset": "nq",
        "question": question,
        "answers": answers,
        "passages": [{"title": t, "text": x, "is_supporting": s} for t, x, s in passages],
    }


FLASH = _record(
    "how many episodes is season 4 of the flash",
    ["23"],
    [("The Flash", GOLD, True), ("Arrow", "Arrow is another series of The CW.", False)],
)
OTHER = _record(
    "where is the flash produced",
    ["Vancouver"],
    [("The Flash", "The Flash stars Grant Gustin as Barry Allen.", True)],
)


def test_answerless_drops_exactly_the_answer_sentences() -> None:
    rest = answerless(GOLD, ["23"])
    assert rest is not None
    assert "23" not in rest
    assert "fourth season began" in rest and "Vancouver" in rest


def test_answerless_gives_nothing_when_no_or_every_sentence_holds_the_answer() -> None:
    assert answerless(GOLD, ["Toronto"]) is None
    assert answerless("It had 23 episodes. Then 23 more.", ["23"]) is None


def test_answer_windows_keep_the_neighbours_of_the_answer_sentence() -> None:
    assert answer_windows(GOLD, ["23"]) == [
        "The fourth season began airing in 2017. It ran for 23 episodes on The CW. "
        "The show is produced in Vancouver."
    ]
    assert answer_windows("Short. It had 23 episodes.", ["23"]) == []


def test_siblings_are_same_title_paragraphs_without_the_answer() -> None:
    by_title = title_index([FLASH, OTHER])
    assert siblings(FLASH, by_title) == ["The Flash stars Grant Gustin as Barry Allen."]
    # The sibling that holds the answer is not a negative.
    holds = _record("q", ["Gustin"], [("The Flash", GOLD, True)])
    assert siblings(holds, by_title) == []


def test_build_hard_pairs_adds_labelled_topic_negatives_and_windows() -> None:
    pairs = build_hard_pairs([FLASH, OTHER], seed=1)
    kinds = {(p.kind, p.label) for p in pairs}
    assert ("answerless", 0) in kinds and ("sibling", 0) in kinds and ("window+", 1) in kinds
    for pair in pairs:
        if pair.kind in ("answerless", "sibling") and pair.question == FLASH["question"]:
            assert "23" not in pair.text


def test_mixed_pairs_keep_the_topic_recipe_s_pairs_and_add_the_on_topic_ones() -> None:
    topic = build_pairs([FLASH, OTHER], strips=True, seed=1)
    mixed = build_hard_pairs([FLASH, OTHER], seed=1, **MIXED)  # type: ignore[arg-type]

    def count(pairs, kinds):
        return sum(p.kind in kinds for p in pairs)

    shared = ("positive", "hard", "easy", "strip+", "strip-hard")
    assert count(mixed, shared) == count(topic, shared)  # the distractors keep their share
    assert count(mixed, ("answerless", "sibling", "window+")) == len(mixed) - len(topic) > 0


def test_doc_neighbours_are_nearby_lines_without_the_answer(tmp_path: Path) -> None:
    (tmp_path / "grep").mkdir()
    (tmp_path / "grep" / "help.txt").write_text(
        "-A, --after-context=NUM   print NUM lines of trailing context\n"
        "-B, --before-context=NUM  print NUM lines of leading context\n"
        "-C, --context=NUM         print NUM lines of output context\n"
    )
    record = _record(
        "how do I see lines after a hit",
        ["-A"],
        [("grep/help.txt", "-A, --after-context=NUM   print NUM lines of trailing context", True)],
    )
    found = doc_neighbours(record, tmp_path)
    assert found[0].startswith("-B") and all("-A" not in t for t in found)
    assert doc_neighbours(record, tmp_path / "missing") == []


def test_topic_report_separates_kinds_and_keeps_the_old_pairs() -> None:
    records = [FLASH, OTHER]

    def by_answer(questions: list[str], passages: list[str]) -> list[float]:
        # A judge that reads the answer: high only where a gold answer occurs.
        return [1.0 if ("23" in p or "Gustin" in p) else -1.0 for p in passages]

    report = topic_report(by_answer, records, seed=0)
    assert report["positive_vs_answerless"]["auc"] == 1.0
    assert report["pairs_by_kind"]["answerless"] >= 1
    base = [p for p in topic_pairs(records, seed=0) if p.kind in ("positive", "hard", "easy")]
    assert report["all"]["pairs"] == len(base)
