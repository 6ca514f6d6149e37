"""Node `refine_strips`: CRAG's knowledge refinement ("decompose, then recompose").

Usable passages are split into strips, sentences that are instructions aimed at the model are
removed (prompt injection, see `nodes._guard`), every new strip is scored by the evaluator,
strips under the filter threshold are dropped, the top k are kept and rejoined in their
original order. With `option_lists="whole"`, a passage that lists options or terms stays one
strip, graded as grading graded its passage, with each entry on its own line.
"""

from collections.abc import Sequence
from functools import partial
from typing import NotRequired, TypedDict

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import StripsEvent, StripView, emit, source_label
from graphs.state import Passage, State, Strip, content_hash, score_key
from models.text import split_strips
from nodes._common import score_texts
from nodes._doc_entries import entry_pieces
from nodes._guard import is_instruction, without_instructions

__all__ = [
    "StripsUpdate",
    "best_strips",
    "passage_strips",
    "refine_strips",
    "select_strips",
    "usable_passages",
]

_PASSAGE = "passage scores"


def usable_passages(state: State) -> list[Passage]:
    """Return the passages refinement may use: web ones always, local ones unless Incorrect."""
    drop_local = state.get("crag_action") == "Incorrect"
    return [p for p in state.get("passages") or [] if p["origin"] == "web" or not drop_local]


def select_strips(
    strips: Sequence[Strip], passages: Sequence[Passage], *, threshold: float, top_k: int
) -> list[Strip]:
    """Mark the kept strips (above `threshold`, top `top_k`) and return all in original order.

    A strip whose text a better one already says is not kept again: overlapping chunks of one
    document (or one page found locally and on the web) would spend the slots on repeats.
    """
    rank = {p["hash"]: i for i, p in enumerate(passages)}
    eligible = [s for s in strips if s["passage_hash"] in rank]
    picked = best_strips(
        [(s["text"], s["score"]) for s in eligible], threshold=threshold, top_k=top_k
    )
    best = {eligible[i]["hash"] for i in picked}
    ordered = sorted(strips, key=lambda s: (rank.get(s["passage_hash"], len(rank)), s["order"]))
    return [{**s, "kept": s["hash"] in best} for s in ordered]


def best_strips(scored: Sequence[tuple[str, float]], *, threshold: float, top_k: int) -> list[int]:
    """Return the indices of the strips to keep from (text, score) pairs, best first.

    At or above `threshold`, at most `top_k`, and a text a better strip already says (case and
    spacing aside) is not kept again.
    """
    said: set[str] = set()
    picked: list[int] = []
    for i in sorted(range(len(scored)), key=lambda i: -scored[i][1]):
        text, score = scored[i]
        key = " ".join(text.lower().split())
        if score >= threshold and len(picked) < top_k and key not in said:
            picked.append(i)
            said.add(key)
    return picked


def passage_strips(text: str, context: Context) -> list[str]:
    """Return the strips of one passage's text, its instructions to the model removed.

    A passage that lists options (`nodes._doc_entries`) is cut as `option_lists` says: like
    prose (a `--help` list has no sentence ends, so it is one strip), one strip per entry, or
    whole. The list is found in the text as written (the guard flattens it), then each piece
    is guarded.
    """
    split = partial(
        split_strips,
        mode=context.strip_mode,
        sentences=context.strip_sentences,
        words=context.strip_words,
    )
    by_list = context.option_lists != "sentences" and context.strip_mode == "sentences"
    pieces = entry_pieces(text) if by_list else []
    if not pieces:
        return split(without_instructions(text)[0])
    if context.option_lists == "whole":  # one entry a line: run together, the reader mixes them
        lines = (" ".join(without_instructions(piece)[0].split()) for piece, _ in pieces)
        whole = "\n".join(line for line in lines if line)
        return [whole] if whole else []
    strips: list[str] = []
    for piece, entry in pieces:
        clean = without_instructions(piece)[0]
        strips += split(clean) if not entry else [" ".join(clean.split())] if clean else []
    return strips


def _new_strips(
    passages: Sequence[Passage], seen: set[str], context: Context
) -> tuple[list[Strip], set[str]]:
    """Return the strips of the passages not cut yet, and those that keep their passage's grade.

    A passage kept whole as one list strip is not scored again: its grade is already the best
    of the passage and its windows, and the evaluator reads only a list's first lines.
    """
    strips = []
    graded: set[str] = set()
    for passage in passages:
        if passage["hash"] in seen:
            continue
        pieces = passage_strips(passage["text"], context)
        title = passage["title"] if not is_instruction(passage["title"]) else passage["source"]
        whole = (
            context.option_lists == "whole"
            and passage["score"] is not None
            and len(pieces) == 1
            and bool(entry_pieces(passage["text"]))
        )
        for order, piece in enumerate(pieces):
            strip = Strip(
                hash=content_hash(f"{passage['hash']}:{order}:{piece}"),
                passage_hash=passage["hash"],
                order=order,
                text=piece,
                title=title,
                source=passage["source"],
                position=passage["position"],
                url=passage["url"],
                origin=passage["origin"],
                score=passage["score"] or 0.0,
                kept=False,
            )
            strips.append(strip)
            if whole:
                graded.add(strip["hash"])
    return strips, graded


class StripsUpdate(TypedDict):
    """What `refine_strips` writes: every strip, the kept ones marked."""

    strips: list[Strip]
    window_scores: NotRequired[dict[str, float]]


def _score(
    strips: list[Strip], graded: set[str], state: State, runtime: Runtime[Context], deps: Deps
) -> tuple[list[Strip], dict[str, float]]:
    """Score new strips, reusing the scores grading gave the same windows; return the new ones.

    Strips in `graded` keep their passage's grade. When the evaluator fails, each strip keeps
    its passage's score.
    """
    question = state["standalone_question"]
    known = state.get("window_scores") or {}
    fresh = [s for s in strips if s["hash"] not in graded]
    texts = list(
        dict.fromkeys(s["text"] for s in fresh if score_key(question, s["text"]) not in known)
    )
    scores = (
        score_texts(
            runtime, deps, node="refine_strips", question=question, texts=texts, used=_PASSAGE
        )
        if texts
        else []
    )
    if scores is None:
        return strips, {}
    found = {score_key(question, t): v for t, v in zip(texts, scores, strict=True)}
    scores_now = known | found
    scored: list[Strip] = [
        s
        if s["hash"] in graded
        else {**s, "score": round(scores_now[score_key(question, s["text"])], 4)}
        for s in strips
    ]
    return scored, found


def refine_strips(state: State, runtime: Runtime[Context], deps: Deps) -> StripsUpdate:
    """Score the strips of newly usable passages and select the knowledge."""
    context = runtime.context
    passages = usable_passages(state)
    old = list(state.get("strips") or [])
    new, graded = _new_strips(passages, {s["passage_hash"] for s in old}, context)
    new, found = _score(new, graded, state, runtime, deps)
    strips = select_strips(
        [*old, *new],
        passages,
        threshold=context.crag_thresholds().strip,
        top_k=context.strips_top_k,
    )
    emit(runtime, _strips_event(strips, context.strip_mode))
    update = StripsUpdate(strips=strips)
    if found:
        update["window_scores"] = found
    return update


def _strips_event(strips: Sequence[Strip], mode: str) -> StripsEvent:
    kept = sum(s["kept"] for s in strips)
    return StripsEvent(
        type="strips",
        node="refine_strips",
        kept=kept,
        dropped=len(strips) - kept,
        mode=mode,
        strips=[
            StripView(
                hash=s["hash"],
                passage_hash=s["passage_hash"],
                label=source_label(s),
                score=s["score"],
                text=s["text"][:200],
                kept=s["kept"],
            )
            for s in strips
        ],
    )
