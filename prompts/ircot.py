"""IRCoT: write the next single chain-of-thought sentence, ending with "So the answer is: X".

As in the IRCoT paper, the model first sees worked demonstrations; for a chat model they are
earlier turns: passages, a question and the reasoning so far, answered by the next sentence.
Both demonstrations come from HotpotQA *train* questions and their gold passages.
"""

from prompts.framing import DATA_RULE

__all__ = ["ANSWER_MARKER", "IRCOT_DEMOS", "IRCOT_STEP", "IRCOT_SYSTEM"]

ANSWER_MARKER = "answer is"

IRCOT_SYSTEM = (
    f"You reason step by step over reference passages. {DATA_RULE} "
    "Reply with exactly one short sentence: the next fact from the passages that leads to the "
    'answer, or "So the answer is: X." once the facts answer the question.'
)

IRCOT_STEP = """{passages}
Question: {question}
Reasoning so far:
{sentences}
Next sentence:"""
"""One step: the passages, the question and the chain so far (or "(none)")."""

_TOAD_HALL = """<passage id="1" title="Toad Hall (ANU)">
Toad Hall is a residential hall in Australian National University, it was opened in 1974.
</passage>
<passage id="2" title="Australian National University">
The Australian National University (ANU) is a national research university located in \
Canberra, the capital of Australia.
</passage>"""
_TOAD_QUESTION = "Toad Hall is a residential hall in a university located in what Australian city?"
_SAXBY = """<passage id="1" title="Young, New South Wales">
Young is a town in the South West Slopes region of New South Wales. At the 2011 census, Young \
had a population of 6,960.
</passage>
<passage id="2" title="Kerry Saxby-Junna">
Kerry-Anne Saxby-Junna (born 2 June 1961) is a retired Australian race walker. She was born \
in Young, New South Wales.
</passage>"""
_SAXBY_QUESTION = (
    "At the 2011 census, what was the population of the town where Kerry Saxby-Junna was born?"
)
_HALL = "Toad Hall is a residential hall in the Australian National University."

IRCOT_DEMOS: tuple[tuple[str, str], ...] = (
    (IRCOT_STEP.format(passages=_TOAD_HALL, question=_TOAD_QUESTION, sentences="(none)"), _HALL),
    (
        IRCOT_STEP.format(
            passages=_TOAD_HALL,
            question=_TOAD_QUESTION,
            sentences=f"{_HALL}\nThe Australian National University is located in Canberra.",
        ),
        "So the answer is: Canberra.",
    ),
    (
        IRCOT_STEP.format(
            passages=_SAXBY,
            question=_SAXBY_QUESTION,
            sentences="Kerry Saxby-Junna was born in Young, New South Wales.",
        ),
        "At the 2011 census, Young had a population of 6,960.",
    ),
)
"""(user turn, model reply) pairs shown before the real step."""
