"""Throwaway (session 19, R2): the salience reading of every "it"/"there" follow-up, no LLM.

Run from a tree (PYTHONPATH) to write that tree's picks: per follow-up whose pronoun salience
decides, the referent it picks and whether the substituted question is right.
"""

import json
import sys
from pathlib import Path

from bench.datasets.conversations import load_conversations, turn_rewrite_ok
from bench.suites.multiturn_rewrites import earlier_texts, reply
from models.followup import Exchange, is_fragment, stands_alone, understood
from models.followup_candidates import candidates, pointer, substitute
from models.followup_choice import _ELLIPSIS, _points_further
from models.followup_salience import recent_things
from models.followup_times import dated

RUNS = {
    "threads": "threads{}-s14-main",
    "threads2": "threads2{}-s13-main",
    "threads3": "threads3{}-s13-main",
    "threads4": "threads4{}-s13-main",
    "threads5": "threads5{}-s14-main",
    "threads6": "threads6{}-s14-main",
    "threads7": "threads7{}-s15-llm",
}
TEST_RUNS = {
    "threads": "threads-test-choice",
    "threads2": "threads2-test-s7",
    "threads3": "threads3-test-s9",
    "threads4": "threads4-test-s10",
    "threads5": "threads5-test-shipped",
    "threads6": "threads6-test-shipped",
    "threads7": "threads7-test-shipped",
}


def main(split: str, out: Path) -> None:
    """Write the salience pick of every it/there follow-up of the split, and its rightness."""
    rows = []
    for name, run in RUNS.items():
        run = run.format("-dev") if split == "dev" else TEST_RUNS[name]
        path = Path(f"docs/bench/followups/{run}/rewrites.jsonl")
        records = {(r["conversation"], r["turn"]): r for r in map(json.loads, open(path))}
        conversations = load_conversations(Path(f"bench/datasets/{name}/conversations.jsonl"))
        for c in (c for c in conversations if c.split == split):
            first = c.turns[0]
            history = [Exchange(first.turn, first.turn, reply(first))]
            for index, turn in enumerate(c.turns[1:], start=1):
                record = records[(c.id, turn.turn)]
                before = list(history)
                history.append(Exchange(turn.turn, record["rewrite"], reply(turn)))
                text = turn.turn
                if stands_alone(text) or dated(text, before) or _ELLIPSIS.match(text.strip()):
                    continue
                options = candidates([(understood(e), e.answer) for e in before])
                found = pointer(text, options)
                if not found or found.kind not in ("it", "there") or _points_further(text, found):
                    continue
                pick = next(iter(recent_things(before, found.kind)), "")
                if not pick:
                    continue
                question = substitute(text, pick, options)
                usable = bool(question) and not is_fragment(question)
                ok = turn_rewrite_ok(question, turn, earlier=earlier_texts(c, index))
                rows.append(
                    {
                        "set": name,
                        "conversation": c.id,
                        "turn": text,
                        "pick": pick,
                        "question": question,
                        "usable": usable,
                        "ok": usable and ok,
                        "record_ok": record["ok"],
                    }
                )
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
