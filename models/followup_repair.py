"""Text repairs for a model rewrite that found the right referent but did not use it well.

A small reader often names what a follow-up points at (`refers_to`) and then hands the turn
back with the pointing word still in it ("What did it destroy?"), or, on a short "and X?" turn,
asks about X together with what the previous question asked about ("How many inhabitants do
Dunmere, Port Alder, and Brackwater have?"). Both are mechanical, so they are mended here
instead of asking the model again: the model reads the conversation, the code puts the name in.
`put_referent` replaces what still points back; `merged_with` finds the merge and
`ellipsis_from` writes the previous standalone question about X instead.
"""

import re

from models.followup_rules import pronoun_kind, pronouns
from models.names import NOT_NAMES, name_runs, without_conjunction

__all__ = ["ellipsis_from", "merged_with", "put_referent"]

_POSSESSIVE = frozenset({"his", "hers", "its", "their", "theirs"})
_ABOUT_TALK = (
    r"(?:\s+(?:that\s+|which\s+)?(?:we|you|i)\s+(?:just\s+|first\s+|were\s+)?"
    r"(?:talked about|talking about|mentioned|spoke about|discussed|said))?"
)
_THERE = re.compile(
    r"(?<!is )(?<!are )(?<!was )(?<!were )\bthere\b(?!\s+(?:is|are|was|were|be|been)\b)",
    re.IGNORECASE,
)
"""A place "there", not the "there" of "is there a ferry?" or "there was a flood"."""
_INTERJECTION = re.compile(r"^(?:sorry|well|hmm|oh)\b[,\s]*", re.IGNORECASE)
_ELLIPSIS = re.compile(r"^(?:and|what about|how about)\s+(.+?)\s*\??$", re.IGNORECASE)
_LIST_GLUE = re.compile(r"^(?:,|\s|and\b|or\b|the\b)*$", re.IGNORECASE)


def put_referent(text: str, turn: str, referent: str) -> str:
    """Return `text` with what still points back replaced by `referent`, or "" if unclear.

    What points back is, in this order: the pronouns of one kind that `text` holds as often as
    the turn did (so not yet resolved; two kinds left is unclear), a "that/the <noun>" whose
    noun ends the referent ("that bridge", "the bridge we talked about" for "the Halvard
    Bridge"; a "the <noun>" only with such words about the talk), or a place
    word "there" (-> "in <referent>"). A possessive pronoun takes "'s".
    """
    if not referent or referent.lower() in text.lower():
        return ""
    typed: list[str] = [pronoun_kind(m.group(0)) for m in pronouns(turn)]
    left = [m for m in pronouns(text) if _count(text, m.group(0)) >= typed.count(_kind(m))]
    if left:
        if len({_kind(m) for m in left}) > 1:
            return ""
        out = _replace_pronouns(text, left, referent)
    elif found := _pointing_phrase(text, referent):
        out = text[: found.start()] + referent + text[found.end() :]
    elif found := _THERE.search(text):
        out = text[: found.start()] + f"in {referent}" + text[found.end() :]
    else:
        return ""
    out = _INTERJECTION.sub("", without_conjunction(out))
    return out[:1].upper() + out[1:]


def _kind(match: re.Match[str]) -> str:
    return pronoun_kind(match.group(0))


def _count(text: str, pronoun: str) -> int:
    kind = pronoun_kind(pronoun)
    return sum(pronoun_kind(m.group(0)) == kind for m in pronouns(text))


def _replace_pronouns(text: str, found: list[re.Match[str]], referent: str) -> str:
    parts, end = [], 0
    for m in found:
        word = m.group(0).lower()
        following = re.match(r"\s+([A-Za-z][\w'-]*)", text[m.end() :])
        noun_next = following is not None and following.group(1).lower() not in NOT_NAMES
        possessive = word in _POSSESSIVE or (word == "her" and noun_next)
        parts += [text[end : m.start()], f"{referent}'s" if possessive else referent]
        end = m.end()
    return "".join([*parts, text[end:]])


def _pointing_phrase(text: str, referent: str) -> re.Match[str] | None:
    head = referent.split()[-1].strip("?!.,;:\"'").lower()
    if not head.isalpha():
        return None
    noun = rf"\s+(?:[a-z]+\s+)?{re.escape(head)}\b"
    pattern = rf"\b(?:that|this){noun}(?![\w-]){_ABOUT_TALK}|\bthe{noun}{_ABOUT_TALK[:-1]}"
    return re.search(pattern, text, re.IGNORECASE)


def merged_with(rewrite: str, turn: str, earlier: str) -> str:
    """Return an earlier name that a rewrite of an "and X?" turn lists beside X, or "".

    "and Brackwater?" asks the previous question about Brackwater alone; a rewrite that lists
    it with a name from the earlier question ("Dunmere, Port Alder, and Brackwater") merged
    the turns. A name elsewhere in the rewrite ("When did Marta Kello visit Brackwater?") is
    no merge.
    """
    asked = _ELLIPSIS.match(turn.strip())
    if not asked:
        return ""
    new = asked.group(1).strip()
    at = rewrite.find(new)
    if not new[:1].isupper() or at < 0:
        return ""
    before = rewrite[:at]
    listed = [
        (where, name)
        for name in name_runs(earlier)
        if (where := before.rfind(name)) >= 0
        and name not in new
        and _lists(before[where + len(name) :], earlier)
    ]
    return max(listed, default=(0, ""))[1]  # the one just before X: what X follows


def _lists(between: str, earlier: str) -> bool:
    """Tell whether the text between two names is only commas, "and", or more earlier names."""
    for name in name_runs(earlier):
        between = between.replace(name, " ")
    return bool(_LIST_GLUE.match(between))


def ellipsis_from(previous: str, turn: str, replaced: str) -> str:
    """Return the previous standalone question asked about the "and X?" turn's X instead."""
    asked = _ELLIPSIS.match(turn.strip())
    if not asked or replaced not in previous:
        return ""
    return previous.replace(replaced, asked.group(1).strip(), 1)
