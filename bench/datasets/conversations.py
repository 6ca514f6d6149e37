"""The multi-turn set: conversations whose follow-ups lean on earlier turns.

`bench/datasets/multiturn.jsonl` holds one conversation per line:

```
{"id": "mt-001", "corpus": "sample" | "usrdoc",
 "turns": [{"turn": str,            # what the user typed ("Where was she born?")
            "standalone": str,      # the question it means on its own
            "answers": [str, ...]}, # gold answers, any alias counts
           ...]}                    # 2-3 turns; the first turn is already standalone
```

`bench/datasets/threads/conversations.jsonl` (`THREADS_FILE`) is the second set, written after
the rules and over made-up documents they were never tried on (`threads/docs/`, see
`threads/README.md`); `threads2/` (`THREADS2_FILE`), `threads3/` (`THREADS3_FILE`),
`threads4/` (`THREADS4_FILE`), `threads5/` (`THREADS5_FILE`), `threads6/` (`THREADS6_FILE`)
and `threads7/` (`THREADS7_FILE`) are the third to eighth, each
written by someone who had not read the rules, over documents of other kinds (their
`README.md`). Their records add `"split": "dev" | "test"` (seeded, committed before any
tuning) and per turn `"kind"` (`first`, `person`, `place`, `thing`, `event`, `ellipsis`,
`switch`, `meta`) and optional `"variants"` (other acceptable standalone questions); 2-4
turns. A turn with `"unanswerable": true` (in `threads4` to `threads7`) is on topic but not
answered by the documents: it has no answers, declining is right, and the assistant's reply
to it names nothing (as the graph keeps a declined turn). A
`switch` turn changes topic: its standalone question is the turn itself, and a rewrite is
right only if it brings in nothing from the earlier turns (`left_alone`).

`corpus` names what the conversation is answered from: `sample` is the sample corpus
(`app/sample_corpus/local/passages.jsonl`), `usrdoc` the documents of the documents benchmark
(`bench/datasets/usrdoc/docs/`), `threads` the made-up documents of the second set.

A rewrite is judged correct by a deterministic check against the expected standalone
question (`rewrite_correct`): it must read as a question (ends with "?" or opens with a
question word), and every content word of the expected question that the user did not type
in this turn (the words the rewrite had to bring back from the conversation, e.g. "Judith
Keppel" for "When was she born?") must occur in it. Content words are lower-cased tokens
that are not stop words, without a possessive "'s", compared by a crude stem (a plural "s"
dropped, then the first six letters), so "allocated" matches "allocates".
"""

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from models.errors import UserError

__all__ = [
    "CORPORA",
    "MULTITURN_FILE",
    "THREADS2_FILE",
    "THREADS3_FILE",
    "THREADS4_FILE",
    "THREADS5_FILE",
    "THREADS6_FILE",
    "THREADS7_FILE",
    "THREADS_FILE",
    "THREAD_SETS",
    "Conversation",
    "Turn",
    "content_words",
    "is_question",
    "left_alone",
    "load_conversations",
    "missing_words",
    "rewrite_correct",
    "turn_rewrite_ok",
]

_ROOT = Path(__file__).resolve().parents[2]
MULTITURN_FILE = _ROOT / "bench" / "datasets" / "multiturn.jsonl"
THREADS_FILE = _ROOT / "bench" / "datasets" / "threads" / "conversations.jsonl"
THREADS2_FILE = _ROOT / "bench" / "datasets" / "threads2" / "conversations.jsonl"
THREADS3_FILE = _ROOT / "bench" / "datasets" / "threads3" / "conversations.jsonl"
THREADS4_FILE = _ROOT / "bench" / "datasets" / "threads4" / "conversations.jsonl"
THREADS5_FILE = _ROOT / "bench" / "datasets" / "threads5" / "conversations.jsonl"
THREADS6_FILE = _ROOT / "bench" / "datasets" / "threads6" / "conversations.jsonl"
THREADS7_FILE = _ROOT / "bench" / "datasets" / "threads7" / "conversations.jsonl"
THREAD_SETS = {
    "threads": THREADS_FILE,
    "threads2": THREADS2_FILE,
    "threads3": THREADS3_FILE,
    "threads4": THREADS4_FILE,
    "threads5": THREADS5_FILE,
    "threads6": THREADS6_FILE,
    "threads7": THREADS7_FILE,
}
"""The later conversation sets by name, oldest first."""
CORPORA = {
    "sample": _ROOT / "app" / "sample_corpus" / "local" / "passages.jsonl",
    "usrdoc": _ROOT / "bench" / "datasets" / "usrdoc" / "docs",
    "threads": _ROOT / "bench" / "datasets" / "threads" / "docs",
    "threads2": _ROOT / "bench" / "datasets" / "threads2" / "docs",
    "threads3": _ROOT / "bench" / "datasets" / "threads3" / "docs",
    "threads4": _ROOT / "bench" / "datasets" / "threads4" / "docs",
    "threads5": _ROOT / "bench" / "datasets" / "threads5" / "docs",
    "threads6": _ROOT / "bench" / "datasets" / "threads6" / "docs",
    "threads7": _ROOT / "bench" / "datasets" / "threads7" / "docs",
}
"""Corpus name -> what is indexed for it (a JSONL passages file or a documents folder)."""

_TOKEN = re.compile(r"[\w][\w.'’+/*=-]*[\w*]|\w", re.UNICODE)
_STOP = frozenset(
    """a an the of in on at to for from by with and or is are was were be been being do does
    did has have had what which who whom whose when where why how it its it's he she they
    them his her their him this that these those there and as into than then also any can
    could should would will shall may might must not no yes i you we me my your our us
    about after before again over under up down out off more most other some such only own
    same so too very just one ones""".split()
)
_QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how is are was were do does did can could "
    "should would will has have had in on at for from by to list name tell give".split()
)


@dataclass(frozen=True)
class Turn:
    """One user turn: as typed, as meant standalone, and its gold answers."""

    turn: str
    standalone: str
    answers: tuple[str, ...]
    kind: str = ""
    """What the follow-up leans on (`person`, `switch`, ...; "" in the first set)."""
    variants: tuple[str, ...] = ()
    """Other acceptable standalone questions."""
    unanswerable: bool = False
    """On topic, but the documents do not say (no answers): declining is the right reply."""


@dataclass(frozen=True)
class Conversation:
    """A conversation of 2-4 turns over one corpus."""

    id: str
    corpus: str
    turns: tuple[Turn, ...]
    split: str = ""
    """`dev` or `test` (the second set); "" when the set is not split."""


def _stem(word: str) -> str:
    """Return a crude stem: plural "s" dropped, then at most six letters (alphabetic words)."""
    if not word.isalpha():
        return word
    return (word[:-1] if len(word) > 3 and word.endswith("s") else word)[:6]


def content_words(text: str) -> set[str]:
    """Return the stems of the content words of `text` (lower-cased, stop words left out)."""
    words = set()
    for token in _TOKEN.findall(text.lower().replace("’", "'")):
        token = token.rstrip(".")
        token = token[:-2] if token.endswith("'s") else token
        if token and token not in _STOP:
            words.add(_stem(token))
    return words


def is_question(text: str) -> bool:
    """Tell whether `text` reads as a question: ends with "?" or opens with a question word.

    A contraction counts as its word ("what's", "who’s").
    """
    stripped = text.strip()
    first = stripped.split(maxsplit=1)[0].lower().replace("’", "'") if stripped else ""
    first = first.removesuffix("'s")
    return stripped.endswith("?") or first in _QUESTION_WORDS


def missing_words(expected: str, turn: str) -> set[str]:
    """Return the expected question's content words that the typed turn lacks."""
    return content_words(expected) - content_words(turn)


def rewrite_correct(rewrite: str, *, expected: str, turn: str) -> bool:
    """Judge a standalone rewrite of `turn` against the expected standalone question."""
    if not is_question(rewrite):
        return False
    return missing_words(expected, turn) <= content_words(rewrite)


def _borrowed(rewrite: str, *, allowed: str, earlier: Sequence[str]) -> set[str]:
    """Return the rewrite's content words taken from `earlier` and not in `allowed`."""
    before = set().union(*(content_words(text) for text in earlier)) if earlier else set()
    return (content_words(rewrite) - content_words(allowed)) & before


def left_alone(rewrite: str, *, turn: str, earlier: Sequence[str]) -> bool:
    """Tell whether a rewrite of a topic switch is a question that adds nothing from `earlier`.

    `earlier` holds the previous turns' questions and answers; a content word of the rewrite
    that the user did not type and that occurs there means the rewrite leaned on them.
    """
    return is_question(rewrite) and not _borrowed(rewrite, allowed=turn, earlier=earlier)


def turn_rewrite_ok(rewrite: str, turn: Turn, *, earlier: Sequence[str] = ()) -> bool:
    """Judge the rewrite of one follow-up against every accepted standalone question.

    Stricter than `rewrite_correct`: besides bringing back what the turn lacks, the rewrite
    may bring nothing else from the conversation (`earlier`: its questions and answers), so a
    template with the previous question as context, or a second referent, is not right. A
    topic switch (`kind` "switch") is right only when left alone.
    """
    if turn.kind == "switch":
        return left_alone(rewrite, turn=turn.turn, earlier=earlier)
    return any(
        rewrite_correct(rewrite, expected=e, turn=turn.turn)
        and not _borrowed(rewrite, allowed=f"{turn.turn} {e}", earlier=earlier)
        for e in (turn.standalone, *turn.variants)
    )


def _conversation(record: dict[str, object], where: str) -> Conversation:
    try:
        turns = tuple(
            Turn(
                str(t["turn"]),
                str(t.get("standalone") or t["turn"]),
                tuple(t["answers"]),
                str(t.get("kind", "")),
                tuple(str(v) for v in t.get("variants", ())),
                bool(t.get("unanswerable", False)),
            )
            for t in record["turns"]  # type: ignore[attr-defined]
        )
        conversation = Conversation(
            str(record["id"]), str(record["corpus"]), turns, str(record.get("split", ""))
        )
    except (KeyError, TypeError) as error:
        raise UserError(f"{where}: not a conversation ({error!r})") from error
    if conversation.corpus not in CORPORA:
        raise UserError(f"{where}: unknown corpus {conversation.corpus!r}")
    return conversation


def load_conversations(
    path: Path = MULTITURN_FILE,
    *,
    corpora: Sequence[str] | None = None,
    limit: int | None = None,
    split: str | None = None,
) -> list[Conversation]:
    """Read conversations over `corpora` (all when None) in `split` (any when None), `limit`."""
    if not path.is_file():
        raise UserError(f"no such conversations file: {path}")
    found: list[Conversation] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                conversation = _conversation(json.loads(line), f"{path}:{number}")
                wanted = split is None or conversation.split == split
                if wanted and (corpora is None or conversation.corpus in corpora):
                    found.append(conversation)
    return found[:limit] if limit is not None else found
