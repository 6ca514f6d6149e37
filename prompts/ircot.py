"""IRCoT: write the next single chain-of-thought sentence, ending with "So the answer is: X".

As in the IRCoT paper, the model first sees worked demonstrations: passages, a question and
a chain of one-fact sentences that ends with the answer. Both demonstrations are built from
HotpotQA *train* questions and their gold passages.
"""

from prompts.framing import DATA_RULE

__all__ = ["ANSWER_MARKER", "IRCOT_DEMOS", "IRCOT_STEP", "IRCOT_SYSTEM"]

ANSWER_MARKER = "answer is"

IRCOT_SYSTEM = (
    f"You reason step by step over reference passages. {DATA_RULE} "
    "Write exactly one short sentence: one new fact from the passages, or the answer."
)

IRCOT_DEMOS = """Example 1
<passage title="Toad Hall (ANU)">Toad Hall is a residential hall in Australian National \
University, it was opened in 1974.</passage>
<passage title="Australian National University">The Australian National University (ANU) is \
a national research university located in Canberra, the capital of Australia.</passage>
Question: Toad Hall is a residential hall in a university located in what Australian city?
Reasoning:
Toad Hall is a residential hall in the Australian National University.
The Australian National University is located in Canberra.
So the answer is: Canberra.

Example 2
<passage title="Kerry Saxby-Junna">Kerry-Anne Saxby-Junna (born 2 June 1961) is a retired \
Australian race walker. She was born in Young, New South Wales.</passage>
<passage title="Young, New South Wales">Young is a town in the South West Slopes region of \
New South Wales. At the 2011 census, Young had a population of 6,960.</passage>
Question: At the 2011 census, what was the population of the city where Kerry Saxby-Junna was \
born?
Reasoning:
Kerry Saxby-Junna was born in Young, New South Wales.
At the 2011 census, Young had a population of 6,960.
So the answer is: 6,960.
"""

IRCOT_STEP = """{demos}
Now the real task.
{passages}
Question: {question}
Reasoning:
{sentences}"""
"""The model continues the reasoning with its next sentence (the chain so far may be empty)."""
