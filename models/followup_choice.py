"""The `llm` follow-up rewriter: the model picks the referent from a list, the code puts it in.

The names and noun phrases of the earlier turns (`models.followup_candidates.candidates`) are
shown numbered, and the model answers with one of them or "none" (a schema-constrained enum: it
cannot name something the conversation never said, nor a whole sentence). Two kinds of turn are
not asked about, by salience: a non-person "it" or "there" means the last exchange's most
salient thing, its answer or its question's own, by what the question asked
(`models.followup_salience`), and a "he"/"she" after "Who ...?" the person answered, or whom
the same pronoun was read as last turn. What in the turn points back ("she", "that town",
"there") is then replaced in code. A turn with nothing to replace ("and how deep?", "for how
long?") is written out by the model with the chosen referent and checked to name it and keep
the turn's words. "And Port Alder?" asks the previous standalone question about Port Alder. A
turn that names its own topic is kept as typed; when no model can be asked, or its reply is
unusable, the rules answer (`RulesRewriter`) and the rewrite says why.
"""

import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from models.followup import (
    Exchange,
    Rewrite,
    RulesRewriter,
    conversation_lines,
    is_fragment,
    points_back,
    stands_alone,
    understood,
)
from models.followup_candidates import (
    Pointer,
    candidates,
    pointer,
    reaches_back,
    substitute,
)
from models.followup_rules import pronouns
from models.followup_salience import (
    agreeing,
    known_people,
    people_first,
    recent_person,
    recent_things,
)
from models.followup_times import dated
from models.names import name_runs, title_runs, without_conjunction
from models.text import FUNCTION_WORDS, content_tokens, strip_markup
from prompts.follow_up_choice import (
    CHOOSE_EXAMPLES,
    CHOOSE_SYSTEM,
    CHOOSE_TURN,
    NONE,
    WRITE_EXAMPLES,
    WRITE_SYSTEM,
    WRITE_TURN,
)
from prompts.framing import as_data

__all__ = ["ChoiceRewriter", "asked_about"]

_MAX_CHARS = 300
_ELLIPSIS = re.compile(r"^(?:and|what about|how about)\s+(.+?)\s*\??$", re.IGNORECASE)
_ARTICLE = re.compile(r"^the\s+", re.IGNORECASE)
_OWNED_THING = re.compile(r"^(?:its|his|her|their)(?:\s+[a-z][\w-]*){1,3}\s*\??$", re.IGNORECASE)
""""And its capacity?": a noun phrase on a possessive asks what that thing of the referent is."""


def _choose_prefix() -> tuple[BaseMessage, ...]:
    messages: list[BaseMessage] = [SystemMessage(CHOOSE_SYSTEM)]
    for history, question, asked, options, choice in CHOOSE_EXAMPLES:
        listed = "\n".join(f"{i}. {o}" for i, o in enumerate([*options, NONE], 1))
        turn = CHOOSE_TURN.format(history=history, question=question, asked=asked, options=listed)
        messages += [HumanMessage(turn), AIMessage(f'{{"refers_to": "{choice}"}}')]
    return tuple(messages)


def _write_prefix() -> tuple[BaseMessage, ...]:
    messages: list[BaseMessage] = [SystemMessage(WRITE_SYSTEM)]
    for history, question, referent, written in WRITE_EXAMPLES:
        turn = WRITE_TURN.format(history=history, question=question, referent=referent)
        messages += [HumanMessage(turn), AIMessage(f'{{"standalone_question": "{written}"}}')]
    return tuple(messages)


_CHOOSE = _choose_prefix()
_WRITE = _write_prefix()
"""The instruction and worked turns: the same prefix on every call (the KV cache keeps it)."""


def asked_about(word: str) -> str:
    """Return the line that says what to resolve: a pointing word, or the whole turn."""
    if not word:
        return "What is the last question about?"
    return f'What does "{word}" in the last question mean?'


class ChoiceRewriter:
    """Ask the model to pick the referent among the conversation's names; substitute in code."""

    def __init__(self, model: Callable[[], BaseChatModel], *, attempts: int = 2) -> None:
        """Keep how to get the model (it may be missing) and how often to ask it."""
        self.model = model
        self.attempts = attempts

    def rewrite(self, turn: str, history: Sequence[Exchange]) -> Rewrite:
        """Return the standalone question for `turn`."""
        if stands_alone(turn):
            return Rewrite(turn, "kept")
        try:
            model = self.model()
        except Exception as error:  # noqa: BLE001 - a missing model degrades to the rules
            found = RulesRewriter().rewrite(turn, history)
            return Rewrite(found.question, found.made, found.referent, str(error), str(error))
        if when := dated(turn, history):
            return self._dated(model, *when, history)
        try:
            return self._resolve(model, turn, history)
        except ValueError as error:
            return _rules(turn, history, str(error))

    def _dated(
        self, model: BaseChatModel, question: str, said: str, history: Sequence[Exchange]
    ) -> Rewrite:
        """Read the rest of a turn whose time pointer was replaced in code ("in 1884").

        The time is the conversation's, put in by `models.followup_times.dated`; a "she" or
        "the mill" left in the turn is read as in any other turn, and when the model is no
        help the dated turn stands as it is.
        """
        try:
            rest = self._resolve(model, question, history)
        except ValueError:
            return Rewrite(question, "resolved", said)
        if rest.made == "kept":
            return Rewrite(question, "resolved", said)
        referent = f"{said}, {rest.referent}" if rest.referent else said
        return Rewrite(rest.question, rest.made, referent)

    def _resolve(self, model: BaseChatModel, turn: str, history: Sequence[Exchange]) -> Rewrite:
        if swapped := self._ellipsis(model, turn, history):
            return swapped
        options = candidates([(understood(e), e.answer) for e in history])
        if not options:
            raise ValueError("the conversation names nothing to point back to")
        found = pointer(turn, options)
        if found and found.kind in ("he", "she"):
            options = people_first(agreeing(options, found.kind), known_people(history))
        word = found.word if found else ""
        recent = ""
        if found and not _points_further(turn, found):
            if found.kind in ("it", "there"):
                recent = next(iter(recent_things(history, found.kind)), "")
            elif found.kind in ("he", "she"):
                recent = recent_person(history, found.kind)
        if recent:
            choice = recent  # the last thing or person talked about, by rule: no model asked
        else:
            # "none" (a new topic) is offered only to a turn that does not point back: no
            # pronoun or pointing word, no leading "And", not a fragment, more than one word
            open_topic = not points_back(turn)
            choice = self._choose(model, turn, history, options, word, open_topic=open_topic)
        if choice == NONE:
            return Rewrite(turn, "kept")  # a new topic, left as typed
        said = f"{word.lower()} = {choice}" if found else choice
        question = substitute(turn, choice, options)
        if question and (more := pointer(question, options)) and more.kind not in ("that", "there"):
            # a second kind of pronoun ("What did he leave to it?"): one more choice, capped
            things = recent_things(history, more.kind) if more.kind == "it" else []
            other = next(iter(things), "") or self._choose(
                model, question, history, agreeing(options, more.kind), more.word, open_topic=False
            )
            question = substitute(question, other, options) or question
            said = f"{said}, {more.word.lower()} = {other}"
        if question and not is_fragment(question):
            return Rewrite(question, "model", said)
        if question and _owned_thing(turn):
            return Rewrite(_what_is(question), "model", said)  # no words borrowed from elsewhere
        written = self._write(model, turn, history, choice)
        if not points_back(turn) and content_tokens(written) <= content_tokens(turn):
            return Rewrite(turn, "kept")  # nothing points back and the writer added nothing
        if why := _unusable(written, turn, choice, found):
            raise ValueError(why)
        return Rewrite(written, "model", said)

    def _ellipsis(
        self, model: BaseChatModel, turn: str, history: Sequence[Exchange]
    ) -> Rewrite | None:
        """Ask the previous standalone question about the X of "And X?" (a name) instead.

        The name may come with its article ("and the Zeller Tower?"); the previous question
        keeps its own ("When was the Halvard Bridge opened?" -> "... the Zeller Tower ...").
        """
        asked = _ELLIPSIS.match(turn.strip())
        new = asked.group(1).strip() if asked else ""
        bare = _ARTICLE.sub("", new)
        previous = understood(history[-1])
        # "and the People team?" after a question about "the Field Service team"
        if kind := _same_kind(bare, previous):
            return Rewrite(previous.replace(kind, bare, 1), "model", f"{bare} for {kind}")
        if not bare[:1].isupper() or title_runs(bare) != [bare] or bare in previous:
            return None
        names = [n.removeprefix("the ") for n in title_runs(previous)]
        if len(names) > 1:
            replaced = self._choose(model, turn, history, names, new, swap=True, open_topic=False)
            names = [replaced] if replaced in names else []
        if not names:
            return None
        question = previous.replace(names[0], bare if f"the {names[0]}" in previous else new, 1)
        return Rewrite(question[:1].upper() + question[1:], "model", f"{bare} for {names[0]}")

    def _choose(
        self,
        model: BaseChatModel,
        turn: str,
        history: Sequence[Exchange],
        options: Sequence[str],
        word: str,
        *,
        swap: bool = False,
        open_topic: bool = True,
    ) -> str:
        """Return the option the model picks (`NONE` only if `open_topic`).

        Raises:
            ValueError: The model picked nothing listed (after `attempts` tries).
        """
        allowed = [*options, NONE] if open_topic else list(options)
        listed = "\n".join(f"{i}. {o}" for i, o in enumerate(allowed, 1))
        line = f'Which earlier name does "{word}" replace?' if swap else asked_about(word)
        prompt = CHOOSE_TURN.format(
            history=conversation_lines(history), question=as_data(turn), asked=line, options=listed
        )
        field = {"type": "string", "enum": allowed}
        reply = self._invoke(
            model, ("referent", "refers_to", field), [*_CHOOSE, HumanMessage(prompt)]
        )
        choice = reply.get("refers_to")
        if choice not in allowed:
            raise ValueError(f"the model picked no listed referent: {reply!r}"[:300])
        return str(choice)

    def _write(
        self, model: BaseChatModel, turn: str, history: Sequence[Exchange], referent: str
    ) -> str:
        prompt = WRITE_TURN.format(
            history=conversation_lines(history), question=as_data(turn), referent=referent
        )
        field = {"type": "string", "maxLength": _MAX_CHARS}
        asked = ("follow_up", "standalone_question", field)
        reply = self._invoke(model, asked, [*_WRITE, HumanMessage(prompt)])
        return strip_markup(str(reply.get("standalone_question", ""))).strip()

    def _invoke(
        self,
        model: BaseChatModel,
        asked: tuple[str, str, dict[str, Any]],
        messages: list[BaseMessage],
    ) -> dict[str, Any]:
        """Ask for one field, again on junk output (`attempts` in all).

        `asked` is the schema's title, the field's name and the field's JSON schema.
        """
        title, name, field = asked
        schema = {
            "title": title,
            "type": "object",
            "properties": {name: field},
            "required": [name],
            "additionalProperties": False,
        }
        runnable = model.with_structured_output(schema, max_tokens=96).with_config(
            tags=["nostream"], run_name="condense"
        )
        seen = "no attempt made"
        for _ in range(max(1, self.attempts)):
            try:
                reply = runnable.invoke(messages)
            except Exception as error:  # noqa: BLE001 - junk output: ask again, then the rules
                seen = f"{type(error).__name__}: {error}"[:300]
                continue
            if isinstance(reply, dict):
                return reply
            seen = f"the model returned {type(reply).__name__}, not an object"
        raise ValueError(seen)


def _points_further(turn: str, found: Pointer) -> bool:
    """Tell whether a turn reaches past the last exchange ("back to the flood, when ...")."""
    return " " in found.word or bool(reaches_back(turn))


def _same_kind(named: str, previous: str) -> str:
    """Return the one "<Name> <noun>" of `previous` that "<Other> <noun>" replaces, or ""."""
    head, _, noun = named.rpartition(" ")
    if not (head and noun.islower() and name_runs(head) == [head]) or named in previous:
        return ""
    found = {
        f"{name} {noun}"
        for name in (n.removeprefix("the ") for n in name_runs(previous))
        if re.search(rf"\b{re.escape(name)} {re.escape(noun)}\b", previous)
    }
    return found.pop() if len(found) == 1 else ""


def _owned_thing(turn: str) -> bool:
    """Tell whether a turn is only a possessive and a noun phrase ("And its capacity?")."""
    text = without_conjunction(turn).strip()
    nouns = text.rstrip(" ?").split()[1:]
    return bool(_OWNED_THING.match(text)) and not FUNCTION_WORDS & {w.lower() for w in nouns}


def _what_is(phrase: str) -> str:
    """Return "What is <phrase>?" ("What are" for a plural last word)."""
    bare = phrase.rstrip(" ?")
    bare = bare[:1].lower() + bare[1:] if _ARTICLE.match(bare) else bare
    last = bare.split()[-1].lower()
    verb = "are" if last.endswith("s") and not last.endswith(("ss", "'s", "us")) else "is"
    return f"What {verb} {bare}?"


def _unusable(written: str, turn: str, referent: str, found: Pointer | None) -> str:
    """Return why a written-out question cannot be used, or ""."""
    own = content_tokens(turn)
    if not written.endswith("?") or is_fragment(written) or len(written) > _MAX_CHARS:
        return f"the written question {written!r} is not a full question"
    if not content_tokens(referent) <= content_tokens(written):
        return f"the written question does not name {referent!r}"
    if own and len(own & content_tokens(written)) < (len(own) + 1) // 2:
        return "the written question lost the turn's own words"
    if found and pronouns(written):
        return f"the written question left {found.word!r} unresolved"
    return ""


def _rules(turn: str, history: Sequence[Exchange], why: str) -> Rewrite:
    found = RulesRewriter().rewrite(turn, history)
    return Rewrite(found.question, found.made, found.referent, why)
