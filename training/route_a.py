"""Hand-written inputs that need no documents (route A), and chatty ones that do (route B).

`models/artifacts/labels/route_a.jsonl` was written by hand for this project: it is not drawn
from a dataset and not generated from templates. Route A: greetings, thanks, farewells, small
talk, requests about the conversation itself ("what did I just ask?"), instructions to the
assistant ("answer shorter please"), arithmetic and acknowledgements. Route B: *hard
negatives*, inputs that look chatty but ask what only documents answer ("thanks! and who
designed it?"). One JSON object a line:

- `text`: the input as a user would type it (case, punctuation and typos kept).
- `route`: `"A"` or `"B"`.
- `kind`: the surface form: greeting, thanks, farewell, smalltalk, conversation, instruction,
  arithmetic or acknowledgement; a hard negative names the form it imitates.
- `split`: `"train"` or `"dev"`, fixed (every fourth row of each route is dev).

`acrag train classifier` adds the train split to its labels, repeated by `balanced_repeat`;
`acrag judges eval` reports the dev split.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from models.classifier import ARTIFACT_DIR
from models.errors import UserError
from models.judges import Route

__all__ = ["ROUTE_A_FILE", "ChatExample", "Split", "balanced_repeat", "read_route_a"]

ROUTE_A_FILE = ARTIFACT_DIR.parent / "labels" / "route_a.jsonl"

Split = Literal["train", "dev"]
_FIELDS = ("text", "route", "kind", "split")


@dataclass(frozen=True)
class ChatExample:
    """One hand-written input and the route it needs."""

    text: str
    route: Route
    kind: str
    split: Split


def _example(line: str, where: str) -> ChatExample:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise UserError(f"{where}: not JSON ({error})") from error
    if not isinstance(row, dict) or any(not isinstance(row.get(f), str) for f in _FIELDS):
        raise UserError(f"{where}: need string fields {', '.join(_FIELDS)}")
    if row["route"] not in ("A", "B"):
        raise UserError(f"{where}: route must be A or B, not {row['route']!r}")
    if row["split"] not in get_args(Split):
        raise UserError(f"{where}: split must be train or dev, not {row['split']!r}")
    if not row["text"].strip():
        raise UserError(f"{where}: empty text")
    return ChatExample(row["text"], row["route"], row["kind"], row["split"])


def read_route_a(path: Path = ROUTE_A_FILE, *, split: Split | None = None) -> list[ChatExample]:
    """Read the route-A file, optionally one split only.

    Raises:
        UserError: The file is missing, a row breaks the schema, or a text appears twice.
    """
    if not path.is_file():
        raise UserError(f"no route-A file at {path}")
    examples, seen = [], set()
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            example = _example(line, f"{path.name}:{number}")
            if (key := example.text.casefold()) in seen:
                raise UserError(f"{path.name}:{number}: duplicate text {example.text!r}")
            seen.add(key)
            examples.append(example)
    return [e for e in examples if split is None or e.split == split]


def balanced_repeat(routes: Iterable[str], chat: Iterable[ChatExample], *, classes: int = 3) -> int:
    """Return how often to repeat the hand-written examples so route A weighs as a class.

    The rule is the usual balanced class weight, `n / (classes * n_A)`, over the labels
    counted once (`routes`, the dataset questions' labels, plus the hand-written examples);
    rounded, at least 1. Repeating the whole set, hard negatives too, keeps each A example
    beside the B inputs it is contrasted with.
    """
    labels = [*routes, *(e.route for e in chat)]
    a_labels = labels.count("A")
    return max(1, round(len(labels) / (classes * a_labels))) if a_labels else 1
