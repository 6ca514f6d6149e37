"""Throwaway probe (session 19, #38): would the corpus's evidence pick better referents?

For each dev follow-up whose committed rewrite substituted one referent, every candidate is
substituted, the resulting question scored by the corpus (top-4 hybrid retrieval, the shipped
evaluator's best passage score), and written to a JSONL for the replay.
"""

import json
import sys
from pathlib import Path
from typing import Any

from bench.datasets.conversations import load_conversations, turn_rewrite_ok
from bench.suites.multiturn import corpus_home
from bench.suites.multiturn_rewrites import earlier_texts, reply
from models.evaluator import load_evaluator
from models.followup import Exchange
from models.followup_candidates import candidates, pointer, substitute
from models.followup_salience import agreeing
from stores.home import acrag_home
from stores.retrieval import make_retriever

RUNS = {
    "threads": "threads-dev-s14-main",
    "threads2": "threads2-dev-s13-main",
    "threads3": "threads3-dev-s13-main",
    "threads4": "threads4-dev-s13-main",
    "threads5": "threads5-dev-s14-main",
    "threads6": "threads6-dev-s14-main",
    "threads7": "threads7-dev-s15-llm",
}


def main(out: Path) -> None:
    """Write one row per probed follow-up: every candidate's question, rightness, evidence."""
    evaluator = load_evaluator()
    index_root = acrag_home() / "bench" / "indexes"
    rows = []
    for name, run in RUNS.items():
        records = {
            (r["conversation"], r["turn"]): r
            for r in map(json.loads, open(f"docs/bench/followups/{run}/rewrites.jsonl"))
        }
        conversations = [
            c
            for c in load_conversations(Path(f"bench/datasets/{name}/conversations.jsonl"))
            if c.split == "dev"
        ]
        home = corpus_home(conversations[0].corpus, index_root)
        retriever = make_retriever(home=home, k=4)

        def evidence(question: str, retriever: Any = retriever) -> float:
            passages = [d.page_content for d in retriever.invoke(question)]
            return max(evaluator.score(question, passages), default=-1.0)

        for c in conversations:
            first = c.turns[0]
            history = [Exchange(first.turn, first.turn, reply(first))]
            for index, turn in enumerate(c.turns[1:], start=1):
                record = records.get((c.id, turn.turn))
                history_before = list(history)
                history.append(Exchange(turn.turn, turn.standalone, reply(turn)))
                if record is None or record["made"] != "model":
                    continue
                parts = [p for p in record["referent"].split(", ") if " = " in p]
                if len(parts) != 1:
                    continue
                chosen = parts[0].split(" = ", 1)[1]
                options = candidates([(e.standalone, e.answer) for e in history_before])
                found = pointer(turn.turn, options)
                if found is None:
                    continue
                if found.kind in ("he", "she"):
                    options = agreeing(options, found.kind) or options
                if chosen not in options:
                    options = [chosen, *options]
                earlier = earlier_texts(c, index)
                scored = []
                for option in options:
                    question = substitute(turn.turn, option, options)
                    if not question:
                        continue
                    scored.append(
                        {
                            "option": option,
                            "question": question,
                            "ok": turn_rewrite_ok(question, turn, earlier=earlier),
                            "evidence": evidence(question),
                        }
                    )
                rows.append(
                    {
                        "set": name,
                        "conversation": c.id,
                        "kind": turn.kind,
                        "turn": turn.turn,
                        "pointer": found.kind,
                        "chosen": chosen,
                        "record_ok": record["ok"],
                        "scored": scored,
                    }
                )
                sys.stderr.write(f"{name} {c.id} {turn.turn}\n")
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
