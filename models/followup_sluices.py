"""A turn that is a bare question word ("when?", "and where?") asks the last question again.

"Who opened the Orrin Mill?" -> "Ada Pell" -> "when?" asks when Ada Pell opened the Orrin
Mill: the answer fills the "who" or "what" of the last question, and the new question word
asks about the same event ("When did Ada Pell open the Orrin Mill?"). "Why was the Orrin
Mill closed?" -> "when?" swaps the question word ("When was the Orrin Mill closed?"). No
model here: the words are the conversation's own, so nothing is added that it did not say.
"""

import re

from models.names import TRAILING, name_runs, without_conjunction
from models.text import FUNCTION_WORDS

__all__ = ["base_form", "parallel", "sluice"]

_BARE = re.compile(r"^(when|where|why|how)\s*\??$", re.IGNORECASE)
_SUBJECT = re.compile(r"^(?:who|what)\s+([a-z]+)\s+(\S.*?)\s*\?*$", re.IGNORECASE)
""""Who opened the Orrin Mill?": the answer is the subject, the verb comes next."""
_ASKED = re.compile(
    r"^(?:when|where|why|how)\s+((?:is|are|was|were|do|does|did|has|have|had)\s+\S.*?)\s*\?*$",
    re.IGNORECASE,
)
""""Why was the Orrin Mill closed?": a question word, an auxiliary, the rest kept."""
_IRREGULAR = dict(
    pair.split(":")
    for pair in (
        "built:build made:make found:find held:hold sold:sell won:win began:begin wrote:write "
        "gave:give took:take saw:see kept:keep led:lead lost:lose paid:pay sent:send "
        "spent:spend told:tell brought:bring bought:buy caught:catch taught:teach "
        "fought:fight hung:hang laid:lay struck:strike sang:sing sank:sink tore:tear "
        "wore:wear threw:throw drew:draw flew:fly grew:grow chose:choose froze:freeze "
        "broke:break drove:drive rode:ride hid:hide ate:eat came:come became:become "
        "went:go knew:know got:get stood:stand ran:run dug:dig fed:feed fled:flee "
        "bred:breed dealt:deal slept:sleep swept:sweep left:leave met:meet rose:rise "
        "fell:fall felt:feel stole:steal spoke:speak shot:shoot shook:shake sought:seek "
        "created:create"
    ).split()
)
_VOWELS = "aeiou"
_PARALLEL = re.compile(r"^(?:and|what about|how about)\s+(?P<new>[a-z][a-z' -]*?)\s*\??$")
""""and lime", "and for absence without leave": lower case, so no name (those are swapped
where names are)."""
_PREPOSITIONS = ("for", "of", "about", "on", "in", "with", "at", "by", "from", "to")
_SLOT = r"\b{prep}\s+([a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?)(?=\s+(?:{stop})\b|\s*\?|$)"


def sluice(turn: str, previous: str, answer: str) -> str:
    """Return the last question asked again with a bare question word's turn, or "".

    `previous` is the last standalone question, `answer` its answer. A "who/what" subject
    question takes the name its answer gives as the subject ("When did Ada Pell open the
    Orrin Mill?"); a question whose word is followed by an auxiliary swaps the word ("Why was
    the mill closed?" -> "When was the mill closed?"). "" when the turn is not a bare
    question word, when it repeats the last one, or when neither shape fits.
    """
    bare = _BARE.match(without_conjunction(turn).strip())
    asked = previous.strip()
    if not bare or asked.lower().startswith(bare.group(1).lower()):
        return ""
    word = bare.group(1).capitalize()
    if again := _ASKED.match(asked):
        return f"{word} {again.group(1)}?"
    subject = _SUBJECT.match(asked)
    named = name_runs(answer.strip().rstrip(TRAILING))
    if not (subject and named and (verb := base_form(subject.group(1)))):
        return ""
    return f"{word} did {named[-1]} {verb} {subject.group(2)}?"


def parallel(turn: str, previous: str) -> str:
    """Return the last question with "and X?"'s X in the place of what it parallels, or "".

    "What is the fine for lateness in the band?" -> "and for absence without leave" puts
    the new phrase where the same preposition's was ("What is the fine for absence without
    leave in the band?"); "and lime" after "What is the toll for coal on the canal?" takes
    the place of the one lower-case word after a preposition ("coal"). "" when the turn is
    not such an "and", or no single place fits.
    """
    m = _PARALLEL.match(turn.strip().lower())
    if not m or not previous.strip():
        return ""
    new = m.group("new").strip()
    first, _, rest = new.partition(" ")
    stop = "|".join(_PREPOSITIONS)
    if first in _PREPOSITIONS and rest:
        preps = [first]
    elif " " not in new and new not in FUNCTION_WORDS:  # "and lime", not "and her"
        preps, rest = list(_PREPOSITIONS), new
    else:
        return ""
    slots = [
        found
        for prep in preps
        for found in re.finditer(_SLOT.format(prep=prep, stop=stop), previous)
        if len(preps) == 1 or found.group(1).split()[0] not in ("the", "a", "an")
    ]  # a bare noun ("and lime") stands for a bare noun ("for coal"), not "in the village"
    if len(slots) != 1:
        return ""
    at = slots[0].span(1)
    return previous[: at[0]] + rest + previous[at[1] :]


def base_form(verb: str) -> str:
    """Return a past tense's plain form ("opened" -> "open", "wrote" -> "write"), or "".

    Regular forms lose "-ed" (a doubled consonant is undoubled, "-ied" is "-y"), and a stem of
    one short vowel and one consonant ("nam", "clos") or one ending in "c", "v", "z", "u" or
    "ng"/"rg" gets back its silent "e" ("name", "replace", "serve", "change"), as English
    spells them. "" when the word is no past tense.
    """
    word = verb.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 4 or not word.endswith("ed") or word.endswith("eed"):
        return ""
    stem = word[:-2]
    if stem.endswith("i"):
        return stem[:-1] + "y"
    if stem[-1] == stem[-2] and stem[-1] not in "lsz" + _VOWELS:
        return stem[:-1]
    return stem + "e" if _silent_e(stem) else stem


def _silent_e(stem: str) -> bool:
    """Tell whether a stem left by "-ed" is spelt with a final "e" ("nam" -> "name").

    One short vowel and one consonant ("nam", "clos": a stem spelt so would have doubled its
    consonant, "planned"), "c", "v", "z", "u", "dg", "ng" after "a", "e" or "u" ("chang"),
    two vowels and "s" ("caus", "rais"), or, after a consonant, "ad", "id", "od", "ud", "at",
    "ot", "ut", "ar", "ir", "or", "ur", "in", "um" ("decid", "donat", "declar", "restor",
    "combin"); not
    "it" ("visit", "edit").
    """
    word = stem.replace("qu", "q")
    if word.endswith(("c", "v", "z", "u", "dg")) or re.search(r"[aeu]ng$", word):
        return True
    groups = re.findall(f"[{_VOWELS}]+", word)
    if len(groups) == 1 and re.search(f"[{_VOWELS}][^{_VOWELS}wxy]$", word):
        return len(groups[0]) == 1 or word.endswith("s")
    return bool(
        re.search(r"[aeiou]{2}s$", word)
        or re.search(r"[^aeiou](?:[aiou][dt]|[aiou]r|in|um)$", word)
        and not word.endswith("it")
    )
