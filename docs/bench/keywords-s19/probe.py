"""Keyword replies of the 0.5B helper, judged by the old and the new `within_question`.

Run from the checkout's root: `PYTHONPATH=. python docs/bench/keywords-s19/probe.py > OUT`
(the first 40 questions of the NQ, PopQA and HotpotQA dev files, as the robustness run takes).
"""

import json
import sys
from pathlib import Path

from models.chat import load_chat_model
from models.text import content_tokens
from nodes.rewrite_query import _messages, fallback_keywords, parse_keywords, within_question

DATA = Path("../shared/data/qa")


def old_within(keywords: str | None, question: str) -> bool:
    """The check before the nineteenth session: the first five letters only."""
    if not keywords:
        return False
    allowed = {w[:5] for w in content_tokens(question)}
    words = {w[:5] for w in content_tokens(keywords)}
    return bool(words) and words <= allowed


def main() -> None:
    """Write one JSON line per question: the reply, its keywords, both checks, the fallback."""
    model = load_chat_model("qwen2.5-coder-0.5b")
    for name in ("nq", "popqa", "hotpotqa"):
        lines = (DATA / f"{name}.dev.jsonl").read_text().splitlines()[:40]
        for question in (json.loads(line)["question"] for line in lines):
            reply = model.invoke(_messages(question), max_tokens=24, stop=["\n\n"]).text
            keywords = parse_keywords(reply)
            row = {
                "q": question,
                "reply": reply,
                "kw": keywords,
                "old": old_within(keywords, question),
                "new": within_question(keywords, question),
                "fallback": fallback_keywords(question),
            }
            sys.stdout.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
