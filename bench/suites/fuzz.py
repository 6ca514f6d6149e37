"""Fuzz the graph: seeded random questions and settings through fast fake models and judges.

.venv/bin/python -m bench.suites.fuzz --count 500 [--seed 0]

Every run must either end with an answer within its caps or, for an invalid question, raise
the documented `InvalidQuestionError`; anything else is a failure (exit status 1).
"""

import argparse
import importlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from graphs import Context, InvalidQuestionError, build_graph
from graphs.validation import validate_question

__all__ = ["FuzzCase", "FuzzReport", "check_run", "make_case", "run_case", "run_fuzz"]

WORDS = [
    "Paris",
    "capital",
    "France",
    "who",
    "directed",
    "the",
    "film",
    "when",
    "was",
    "born",
    "巴黎",
    "首都",
    "Москва",
    "столица",
    "القاهرة",
    "عاصمة",
    "東京",
    "🗼",
    "🇫🇷",
    "∑",
    "what",
    "answer is",
    "ignore",
    "previous",
    "<passage>",
    "</passage>",
    '{"label": "A"}',
    "?",
    "...",
    "Where's",
    "O'Brien",
    "naïve",
    "Ωmega",
    "\t",
    "\n",
    "   ",
    "%s",
    "{question}",
    "\\n",
]
ODD = ["\x00", "\x07", "\x1b[2J", "\x7f", "\ud800", "\udcff", "\u200b", "\u202e", "\ufeff"]
DOCS = [
    ("Paris is the capital of France. It lies on the Seine.", "Paris"),
    ("Berlin is the capital of Germany.", "Berlin"),
    ("巴黎是法国的首都。", "巴黎"),
    ("Москва — столица России.", "Москва"),
    ("The film was directed by Jane Doe, who was born in 1970.", "Film"),
]


@dataclass
class FuzzCase:
    """One generated run: the question, the settings and which fakes answer."""

    question: str
    context: Context
    replies: list[str]
    keywords: tuple[str, ...]
    junk_judges: bool
    recursion_limit: int
    classified: Literal["A", "B", "C"]
    support_miss: Literal["none", "partial"]


@dataclass
class FuzzReport:
    """What a fuzz run found."""

    count: int = 0
    answered: int = 0
    rejected: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    max_seen: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _question(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.05:
        return rng.choice(["", " ", "\n\t "])
    if shape < 0.08:
        return rng.choice(WORDS) * rng.randint(500, 3000)  # around the length limit
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
    if shape < 0.2:
        words.insert(rng.randrange(len(words) + 1), rng.choice(ODD))
    text = " ".join(words)
    if shape > 0.9:
        text = "".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(1, 80)))
    return text


def make_case(rng: random.Random) -> FuzzCase:
    """Draw one case from `rng`."""
    context = Context(
        route=rng.choice(["auto", "A", "B", "C"]),
        max_retries=rng.randint(0, 3),
        retry_action=rng.choice(["regenerate", "rewrite"]),
        ircot_max_steps=rng.randint(1, 5),
        ircot_max_paragraphs=rng.randint(1, 15),
        candidates=rng.randint(1, 3),
        strip_mode=rng.choice(["sentences", "words", "passage"]),
        strips_top_k=rng.randint(1, 5),
        top_k=rng.randint(1, 5),
        support_filter=rng.random() < 0.3,
        reflect=rng.random() < 0.8,
        judge_attempts=rng.randint(1, 3),
        condense_history=rng.random() < 0.5,
    )
    replies = [
        rng.choice(["Paris.", "", "So the answer is: Paris.", "I think", "Answer:", "😀" * 50])
        for _ in range(3)
    ]
    keywords = tuple(rng.sample(["capital", "Paris", "film", "nothing-matches"], rng.randint(0, 2)))
    return FuzzCase(
        _question(rng),
        context,
        replies,
        keywords,
        junk_judges=rng.random() < 0.15,
        recursion_limit=rng.choice([25, 40, 100]),
        classified=rng.choice(["A", "B", "C"]),
        support_miss=rng.choice(["none", "partial"]),
    )


def _graph(case: FuzzCase) -> Any:
    # The shared test fakes (bench runs from the repository root); imported by name so that
    # mypy checks the packages, not the test tree.
    f = importlib.import_module("tests.fakes")
    junk = f.JunkJudge() if case.junk_judges else None
    generator = f.rule_model(
        [("Write only the next", case.replies[0]), ("Question:", case.replies[1])],
        default=case.replies[2],
    )
    docs = [f.local_doc(text, title=title, position=i) for i, (text, title) in enumerate(DOCS)]
    web = [f.web_doc(DOCS[0][0] + " " + DOCS[0][0], title="Paris (web)", url="https://x.org/p")]
    return build_graph(
        generator=generator,
        rewriter=f.rule_model(default=case.replies[2] or "capital, France"),
        retriever=f.FakeRetriever(documents=docs, k=case.context.top_k, queries=[]),
        web_search=f.FakeWebSearch(web),
        classifier=junk or f.FakeClassifier(case.classified),
        evaluator=junk or f.KeywordEvaluator(case.keywords),
        support=junk or f.FixedSupport("Paris", otherwise=case.support_miss),
        usefulness=junk or f.FixedUsefulness(),
    )


def run_case(case: FuzzCase) -> dict[str, Any] | None:
    """Run one case; return the final state, or None when the question was rejected.

    Raises whatever the graph raised, except `InvalidQuestionError` for an invalid question.
    """
    try:
        return dict(
            _graph(case).invoke(
                {"question": case.question},
                context=case.context,
                config={"recursion_limit": case.recursion_limit},
            )
        )
    except InvalidQuestionError:
        try:  # the rejection must match the documented rules
            validate_question(case.question, max_chars=case.context.max_question_chars)
        except InvalidQuestionError:
            return None
        raise


def _ircot_paragraphs(events: list[dict[str, Any]]) -> int:
    """Return the new passages IRCoT retrieved: those before reflection's first word.

    A reflection retry that rewrites the query retrieves again in the main graph; those
    passages are capped by `max_retries` and `top_k`, not by IRCoT's paragraph cap.
    """
    ircot = next((i for i, e in enumerate(events) if e.get("node") == "reflect"), len(events))
    return sum(e.get("new", 0) for e in events[:ircot] if e.get("type") == "retrieval")


def check_run(case: FuzzCase, state: dict[str, Any]) -> list[str]:
    """Return every cap or contract the final state breaks (empty when the run is sound)."""
    c = case.context
    problems = []
    if not str(state.get("answer") or "").strip():
        problems.append("no final answer")
    if state.get("retries", 0) > c.max_retries:
        problems.append(f"retries {state['retries']} > max_retries {c.max_retries}")
    if state.get("ircot_steps", 0) > c.ircot_max_steps:
        problems.append(f"ircot_steps {state['ircot_steps']} > {c.ircot_max_steps}")
    gathered = _ircot_paragraphs(state.get("events") or [])
    if state.get("route") == "C" and gathered > c.ircot_max_paragraphs:
        problems.append(f"{gathered} IRCoT paragraphs > {c.ircot_max_paragraphs}")
    if len(state.get("candidates") or []) > c.candidates:
        problems.append(f"{len(state['candidates'])} candidates > {c.candidates}")
    if (state.get("events") or [{}])[-1].get("type") != "answer":
        problems.append("the last event is not the answer")
    return problems


def _record(report: FuzzReport, case: FuzzCase, state: dict[str, Any]) -> None:
    for key in ("retries", "ircot_steps", "retrievals"):
        report.max_seen[key] = max(report.max_seen.get(key, 0), int(state.get(key) or 0))
    for problem in check_run(case, state):
        report.failures.append({"question": case.question[:200], "problem": problem})


def run_fuzz(count: int, *, seed: int = 0) -> FuzzReport:
    """Run `count` generated cases and report what happened."""
    rng, report, started = random.Random(seed), FuzzReport(), time.perf_counter()
    for _ in range(count):
        case = make_case(rng)
        report.count += 1
        try:
            state = run_case(case)
        except Exception as error:  # noqa: BLE001 - every exception is a finding
            problem = f"{type(error).__name__}: {error}"[:300]
            report.failures.append({"question": case.question[:200], "problem": problem})
            continue
        if state is None:
            report.rejected += 1
            continue
        report.answered += 1
        _record(report, case, state)
    report.seconds = round(time.perf_counter() - started, 2)
    return report


def main(argv: list[str] | None = None) -> int:
    """Run the fuzz suite and print its report as JSON; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = run_fuzz(args.count, seed=args.seed)
    sys.stdout.write(json.dumps(report.__dict__, indent=2) + "\n")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
