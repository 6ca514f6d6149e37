"""The threads set, the stricter rewrite check, and rewrite-only scoring."""

import json

import pytest

from bench.datasets.check import check_conversations
from bench.datasets.conversations import (
    THREADS2_FILE,
    THREADS3_FILE,
    THREADS4_FILE,
    THREADS5_FILE,
    THREADS6_FILE,
    THREADS7_FILE,
    THREADS_FILE,
    Conversation,
    Turn,
    left_alone,
    load_conversations,
    turn_rewrite_ok,
)
from bench.harness.paired import main as paired_main
from bench.suites.multiturn_rewrites import (
    REWRITES_FILE,
    reply,
    rewrite_scores,
    rewrite_table,
    run_rewrites,
    score_rewrites,
)
from models.followup import Exchange, Rewrite, RulesRewriter, TemplateRewriter

BORN = Turn("Where was she born?", "Where was Marta Kello born?", ("Dunmere",), "person")
SWITCH = Turn("Where was Odile Fanshaw born?", "Where was Odile Fanshaw born?", ("x",), "switch")
EARLIER = ["Who designed the Halvard Bridge?", "Marta Kello"]


@pytest.mark.parametrize(
    ("path", "corpus"),
    [
        (THREADS_FILE, "threads"),
        (THREADS2_FILE, "threads2"),
        (THREADS3_FILE, "threads3"),
        (THREADS4_FILE, "threads4"),
        (THREADS5_FILE, "threads5"),
        (THREADS6_FILE, "threads6"),
        (THREADS7_FILE, "threads7"),
    ],
)
def test_the_threads_sets_are_split_and_sound(path, corpus):
    conversations = load_conversations(path)
    assert len(conversations) >= 60 and {c.corpus for c in conversations} == {corpus}
    halves = {s: load_conversations(path, split=s) for s in ("dev", "test")}
    assert len(halves["dev"]) + len(halves["test"]) == len(conversations)
    assert all(halves.values())
    kinds = {t.kind for c in conversations for t in c.turns[1:]}
    assert kinds == {"person", "place", "thing", "event", "ellipsis", "switch", "meta"}
    assert check_conversations(path).ok


def test_a_bad_split_is_reported(tmp_path):
    folder = tmp_path / "threads"
    folder.mkdir()
    record = json.loads(THREADS_FILE.read_text(encoding="utf-8").splitlines()[0])
    path = folder / "conversations.jsonl"
    path.write_text(json.dumps({**record, "split": "train"}) + "\n", encoding="utf-8")
    problems = check_conversations(path).problems
    assert any("split must be dev or test" in p for p in problems)
    assert "both halves (dev, test) need conversations" in problems


def test_a_rewrite_may_borrow_only_what_the_turn_lacks():
    assert turn_rewrite_ok("Where was Marta Kello born?", BORN, earlier=EARLIER)
    template = "Where was she born? (context: Who designed the Halvard Bridge? — Marta Kello)"
    assert not turn_rewrite_ok(template, BORN, earlier=EARLIER)  # it borrows Halvard Bridge
    assert not turn_rewrite_ok("Where was Halvard born?", BORN, earlier=EARLIER)


def test_a_topic_switch_is_right_only_when_left_alone():
    assert turn_rewrite_ok(SWITCH.turn, SWITCH, earlier=EARLIER)
    assert not turn_rewrite_ok(
        "Where was Odile Fanshaw or Marta Kello born?", SWITCH, earlier=EARLIER
    )
    assert not left_alone("Odile Fanshaw.", turn=SWITCH.turn, earlier=EARLIER)


class Counting:
    """A rewriter that counts its calls and answers with the rules."""

    def __init__(self) -> None:
        self.calls = 0

    def rewrite(self, turn: str, history: list[Exchange]) -> Rewrite:
        self.calls += 1
        return RulesRewriter().rewrite(turn, history)


def test_rewrite_only_scoring_is_resumable(tmp_path):
    first = Turn(
        "Who designed the Halvard Bridge?", "Who designed the Halvard Bridge?", ("Marta Kello",)
    )
    conversation = Conversation("th-x", "threads", (first, BORN, SWITCH), "dev")
    counting = Counting()
    records = run_rewrites([conversation], counting, out=tmp_path, signature="s1")
    assert [r.ok for r in records] == [True, True] and counting.calls == 2
    again = run_rewrites([conversation], counting, out=tmp_path, signature="s1")
    assert again == records and counting.calls == 2  # read back, not asked again
    assert len((tmp_path / REWRITES_FILE).read_text(encoding="utf-8").splitlines()) == 2
    table = rewrite_table(records)
    assert "| switch | 1 | 100.0 |" in table and "| all but switches | 1 | 100.0 |" in table


def test_two_rewrite_runs_are_compared_on_the_same_follow_ups(tmp_path, capsys):
    first = Turn(
        "Who designed the Halvard Bridge?", "Who designed the Halvard Bridge?", ("Marta Kello",)
    )
    conversation = Conversation("th-x", "threads", (first, BORN, SWITCH), "dev")
    rules, template = tmp_path / "rules", tmp_path / "template"
    run_rewrites([conversation], RulesRewriter(), out=rules, signature="r")
    run_rewrites([conversation], TemplateRewriter(), out=template, signature="t")
    scores = rewrite_scores(rules / REWRITES_FILE)
    assert scores == {("th-x", BORN.turn): 1.0, ("th-x", SWITCH.turn): 1.0}
    assert rewrite_scores(template / REWRITES_FILE)[("th-x", BORN.turn)] == 0.0
    paired_main(["--rewrites", str(rules / REWRITES_FILE), str(template / REWRITES_FILE)])
    assert capsys.readouterr().out.startswith("REWRITE RIGHT +50.0 [")


def test_threads4s_unanswerable_turns_have_no_answers_and_the_check_says_so(tmp_path):
    unsaid = [t for c in load_conversations(THREADS4_FILE) for t in c.turns if t.unanswerable]
    assert len(unsaid) >= 8 and not any(t.answers for t in unsaid)
    folder = tmp_path / "threads4"
    folder.mkdir()
    line = next(
        json.loads(row)
        for row in THREADS4_FILE.read_text(encoding="utf-8").splitlines()
        if '"unanswerable": true' in row
    )
    for turn in line["turns"]:
        if turn.get("unanswerable"):
            turn["answers"] = ["Easter"]
    (folder / "conversations.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    problems = check_conversations(folder / "conversations.jsonl").problems
    assert any("an unanswerable turn has no answers" in p for p in problems)


def test_an_unanswerable_turn_names_nothing_in_the_history():
    asked = "Who designed the Halvard Bridge?"
    first = Turn(asked, asked, ("Marta Kello",))
    unsaid = Turn("when did she die", "When did Marta Kello die?", (), "person", (), True)
    after = Turn("where was she born", "Where was Marta Kello born?", ("Dunmere",), "person")
    seen = []

    class Recording(RulesRewriter):
        def rewrite(self, turn, history):
            seen.append([exchange.answer for exchange in history])
            return super().rewrite(turn, history)

    conversation = Conversation("t-u", "threads", (first, unsaid, after), "dev")
    records = score_rewrites([conversation], Recording())
    assert len(records) == 2
    assert seen[-1] == ["Marta Kello.", ""]  # a declined turn names nothing, as in the graph
    assert reply(after) == "Dunmere."
