"""The silver-labelling runner: no-retrieval, single-step and IRCoT answers per question.

This is a deliberately small, self-contained runner used only to label training questions
for the complexity classifier (Adaptive-RAG section 3.2); it is not the acrag graph. Each
strategy sees only the question's own passages, ranked by BM25:

- A: the model answers from the question alone.
- B: the model answers from the top `k` passages for the question.
- C (IRCoT): start from the top `k_step` passages; repeatedly generate one reasoning sentence,
  stop when it says "answer is", otherwise retrieve `k_step` more passages with that sentence
  as the query (at most `max_passages`), for at most `max_steps` sentences; the answer is read
  after "answer is", or asked for with every passage and sentence when the cap is reached.

A strategy is correct when a gold answer occurs in its prediction (`answers.answer_in`).
"""

import json
import logging
import math
import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from tqdm.auto import tqdm

from models.training.answers import answer_in

__all__ = ["RunnerConfig", "bm25_rank", "label_questions", "select_subset"]

logger = logging.getLogger(__name__)

ANSWER_SYSTEM = "Answer the question with a short phrase only (a name, date or number)."
STEP_SYSTEM = (
    "Reason step by step about the question using the passages. Write only the next sentence "
    "of reasoning. When you know the answer, write: So the answer is: <answer>."
)
_TOKEN = re.compile(r"\w+")
_ANSWER_IS = re.compile(r"answer is:?\s*(.+)", re.IGNORECASE)


@dataclass(frozen=True)
class RunnerConfig:
    """Caps of the labelling runner."""

    k: int = 2
    k_step: int = 2
    max_passages: int = 6
    max_steps: int = 3
    passage_words: int = 80
    answer_tokens: int = 24
    step_tokens: int = 40


def bm25_rank(
    query: str, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75
) -> list[int]:
    """Return document indices ordered by BM25 score for `query` (best first, stable)."""
    docs = [Counter(_TOKEN.findall(d.lower())) for d in documents]
    average = sum(sum(d.values()) for d in docs) / max(1, len(docs))
    frequency = Counter(term for d in docs for term in d)
    terms = set(_TOKEN.findall(query.lower()))

    def score(doc: Counter[str]) -> float:
        size = sum(doc.values())
        total = 0.0
        for term in terms & doc.keys():
            idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            tf = doc[term]
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * size / max(average, 1)))
        return total

    return sorted(range(len(docs)), key=lambda i: -score(docs[i]))


def _passages_block(passages: Sequence[dict[str, Any]], words: int) -> str:
    return "\n".join(
        f'<passage title="{p["title"]}">{" ".join(p["text"].split()[:words])}</passage>'
        for p in passages
    )


def _ask(model: BaseChatModel, system: str, user: str, max_tokens: int, stop: list[str]) -> str:
    reply = model.invoke(
        [SystemMessage(system), HumanMessage(user)], max_tokens=max_tokens, stop=stop
    )
    return str(reply.content).strip()


class _Runner:
    def __init__(self, model: BaseChatModel, config: RunnerConfig) -> None:
        self.model, self.config = model, config

    def answer(self, question: str, passages: Sequence[dict[str, Any]], notes: str = "") -> str:
        block = _passages_block(passages, self.config.passage_words)
        context = f"Passages:\n{block}\n\n" if passages else ""
        reasoning = f"Reasoning: {notes}\n" if notes else ""
        user = f"{context}{reasoning}Question: {question}\nAnswer:"
        return _ask(self.model, ANSWER_SYSTEM, user, self.config.answer_tokens, ["\n"])

    def single_step(self, question: str, passages: Sequence[dict[str, Any]]) -> str:
        order = bm25_rank(question, [f"{p['title']} {p['text']}" for p in passages])
        return self.answer(question, [passages[i] for i in order[: self.config.k]])

    def ircot(self, question: str, passages: Sequence[dict[str, Any]]) -> tuple[str, int]:
        texts = [f"{p['title']} {p['text']}" for p in passages]
        chosen: list[int] = []  # in retrieval order, so successive prompts share a prefix
        sentences: list[str] = []
        query = question
        for _ in range(self.config.max_steps):
            new = [i for i in bm25_rank(query, texts) if i not in chosen][: self.config.k_step]
            chosen.extend(new[: max(0, self.config.max_passages - len(chosen))])
            block = _passages_block([passages[i] for i in chosen], self.config.passage_words)
            user = (
                f"Passages:\n{block}\n\n"
                f"Question: {question}\nReasoning so far: {' '.join(sentences) or '(none)'}\n"
                "Next sentence:"
            )
            sentence = _ask(self.model, STEP_SYSTEM, user, self.config.step_tokens, ["\n"])
            sentence = re.split(r"(?<=[.!?])\s", sentence, maxsplit=1)[0] if sentence else ""
            sentences.append(sentence)
            found = _ANSWER_IS.search(sentence)
            if found:
                return found.group(1).strip(), len(sentences)
            query = sentence or question
        notes = " ".join(sentences)
        return self.answer(question, [passages[i] for i in chosen], notes), len(sentences)


def label_questions(
    records: Sequence[dict[str, Any]],
    model: BaseChatModel,
    *,
    config: RunnerConfig | None = None,
) -> Iterator[dict[str, Any]]:
    """Run the three strategies on each question and yield one label row per question."""
    runner = _Runner(model, config or RunnerConfig())
    for record in tqdm(records, desc="silver labels", unit="question"):
        question, passages = record["question"], record["passages"]
        predictions = {
            "A": runner.answer(question, []),
            "B": runner.single_step(question, passages),
        }
        predictions["C"], steps = runner.ircot(question, passages)
        yield {
            "id": record["id"],
            "dataset": record["dataset"],
            "hop": record["hop"],
            "question": question,
            "predictions": predictions,
            "correct": {r: answer_in(p, record["answers"]) for r, p in predictions.items()},
            "ircot_steps": steps,
        }


def select_subset(
    records: Sequence[dict[str, Any]], per_dataset: int, *, seed: int = 0
) -> list[dict[str, Any]]:
    """Pick up to `per_dataset` questions of each dataset (seeded), in a mixed order."""
    rng = random.Random(seed)
    chosen: list[dict[str, Any]] = []
    for dataset in sorted({r["dataset"] for r in records}):
        group = [r for r in records if r["dataset"] == dataset]
        chosen.extend(rng.sample(group, min(per_dataset, len(group))))
    rng.shuffle(chosen)
    return chosen


def run_to_file(
    records: Sequence[dict[str, Any]], model: BaseChatModel, path: Path, **kwargs: Any
) -> int:
    """Label the records not yet in `path`, appending one JSON line each; return how many."""
    done: set[str] = set()
    if path.is_file():
        done = {json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()}
    todo = [r for r in records if r["id"] not in done]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for row in label_questions(todo, model, **kwargs):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            handle.flush()
    logger.info("labelled %d questions into %s (%d already there)", len(todo), path, len(done))
    return len(todo)
