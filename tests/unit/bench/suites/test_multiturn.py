"""The multi-turn set: its data, the rewrite check, and the runner over a fake graph."""

import json

import pytest

from bench.datasets.conversations import (
    Conversation,
    Turn,
    content_words,
    is_question,
    load_conversations,
    rewrite_correct,
)
from bench.harness.turn_records import read_records, report_table
from bench.suites.multiturn import run_multiturn

FACTS = {"judith keppel born": "18 August 1942", "eggheads": "Eggheads"}


class FakeChatGraph:
    """A checkpointed graph stand-in: threads keep history; follow-ups are condensed by rule."""

    def __init__(self, *, rewrite=True, fail_on=(), decline=()):
        self.threads = {}
        self.rewrite = rewrite
        self.fail_on = set(fail_on)
        self.decline = decline
        self.calls = []

    def invoke(self, input, config, *, context):
        thread = config["configurable"]["thread_id"]
        text = input["messages"][-1].content
        self.calls.append((thread, text, context))
        if text in self.fail_on:
            raise RuntimeError("model crashed")
        history = self.threads.setdefault(thread, [])
        standalone = text
        if history:  # a good rewrite, or the failure: the previous answer
            good = text.replace("she", "Judith Keppel")
            standalone = good if self.rewrite else "Judith Keppel was born in 1942."
        history.append(text)
        key = " ".join(content_words(standalone) & {"judith", "keppel", "born", "eggheads"})
        answer = next((a for k, a in FACTS.items() if set(k.split()) <= set(key.split())), "")
        reply = answer or "?"
        declined = any(word in text for word in self.decline)
        return {
            "standalone_question": standalone,
            "answer": reply,
            "candidates": [{"text": reply}],
            "abstained": declined,
        }


CONVERSATION = Conversation(
    "mt-x",
    "sample",
    (
        Turn("Who was Judith Keppel born to be?", "Who was Judith Keppel born to be?", ("x",)),
        Turn("When was she born?", "When was Judith Keppel born?", ("18 August 1942",)),
    ),
)


def test_rewrite_check_needs_the_missing_words_and_a_question():
    turn, expected = "When was she born?", "When was Judith Keppel born?"
    assert rewrite_correct("When was Judith Keppel born?", expected=expected, turn=turn)
    assert rewrite_correct("when was judith keppel born", expected=expected, turn=turn)
    assert not rewrite_correct("When was she born?", expected=expected, turn=turn)
    assert not rewrite_correct("Judith Keppel was born in 1942.", expected=expected, turn=turn)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("What is zstd's default?", {"zstd", "defaul"}),
        ("Which UIDs are allocated?", {"uid", "alloca"}),
        (
            "querystring.parse() and --track-origins=yes",
            {"querystring.parse", "--track-origins=yes"[2:]},
        ),
    ],
)
def test_content_words_stem_and_drop_stop_words(text, words):
    assert content_words(text) == words


def test_is_question():
    assert is_question("Where?") and is_question("how large is it")
    assert is_question("what's the penalty fare") and is_question("Who’s the keeper")
    assert not is_question("The Glassmere Lighthouse.")


def test_the_shipped_set_is_sound():
    conversations = load_conversations()
    assert len(conversations) >= 30
    assert {c.corpus for c in conversations} == {"sample", "usrdoc"}
    for c in conversations:
        assert 2 <= len(c.turns) <= 3
        assert c.turns[0].turn == c.turns[0].standalone
        for turn in c.turns:
            assert turn.answers and is_question(turn.standalone)
            assert rewrite_correct(turn.standalone, expected=turn.standalone, turn=turn.turn)
        for turn in c.turns[1:]:  # a follow-up leans on the conversation
            assert not rewrite_correct(turn.turn, expected=turn.standalone, turn=turn.turn)
    assert len(load_conversations(corpora=["usrdoc"], limit=2)) == 2


def test_runner_plays_one_thread_per_conversation_and_asks_standalone(tmp_path):
    graph = FakeChatGraph()
    records = run_multiturn(
        [CONVERSATION], graph=graph, contexts={"sample": "ctx"}, out=tmp_path, signature="s"
    )
    threads = [thread for thread, _, _ in graph.calls]
    assert threads[0] == threads[1] != threads[2]  # turn 2 in turn 1's thread; solo apart
    assert [text for _, text, _ in graph.calls][2] == "When was Judith Keppel born?"
    follow = records[1]
    assert follow.standalone == "When was Judith Keppel born?"
    assert follow.rewrite_ok is True and follow.acc == 1.0 and follow.solo_acc == 1.0
    assert records[0].rewrite_ok is None
    assert "| sample | 1 | 1 | 100.0 |" in report_table(records)


def test_a_failed_rewrite_is_judged_and_scored(tmp_path):
    records = run_multiturn(
        [CONVERSATION], graph=FakeChatGraph(rewrite=False), contexts={"sample": 0}, out=tmp_path
    )
    assert records[1].rewrite_ok is False
    assert records[1].solo_acc == 1.0


def test_runner_resumes_and_retries_failures(tmp_path):
    broken = FakeChatGraph(fail_on={"When was she born?"})
    assert run_multiturn([CONVERSATION], graph=broken, contexts={"sample": 0}, out=tmp_path) == []
    assert read_records(tmp_path / "records.jsonl")[0].error.startswith("RuntimeError")
    graph = FakeChatGraph()
    first = run_multiturn([CONVERSATION], graph=graph, contexts={"sample": 0}, out=tmp_path)
    again = FakeChatGraph()
    second = run_multiturn([CONVERSATION], graph=again, contexts={"sample": 0}, out=tmp_path)
    assert len(first) == len(second) == 2 and again.calls == []
    other = run_multiturn(
        [CONVERSATION], graph=again, contexts={"sample": 0}, out=tmp_path, signature="new"
    )
    assert len(other) == 2 and again.calls  # another signature plays again
    rows = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert len(rows) == 1 + 2 + 2


def test_an_unanswerable_turn_is_right_only_when_declined(tmp_path):
    unsaid = Turn("When did she die?", "When did Judith Keppel die?", (), "person", (), True)
    conversation = Conversation("mt-u", "sample", (*CONVERSATION.turns, unsaid))
    declining = run_multiturn(
        [conversation],
        graph=FakeChatGraph(decline=("die",)),
        contexts={"sample": 0},
        out=tmp_path / "a",
    )
    answering = run_multiturn(
        [conversation], graph=FakeChatGraph(), contexts={"sample": 0}, out=tmp_path / "b"
    )
    assert (declining[2].acc, declining[2].solo_acc) == (1.0, 1.0)
    assert (answering[2].acc, answering[2].solo_acc) == (0.0, 0.0)
    assert declining[1].acc == answering[1].acc == 1.0  # answerable turns: scored as before
