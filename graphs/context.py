"""Run configuration: one `Context` dataclass passed with `context=` (or the run's `context`)."""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, Literal, NamedTuple, get_args, get_origin, get_type_hints

from graphs.env_defaults import env_defaults
from graphs.validation import InvalidContextError
from models.defaults import DEFAULT_MODEL

__all__ = [
    "BUNDLED",
    "DEFAULT_MODEL",
    "Context",
    "CragThresholds",
    "JudgeKind",
    "artifact_thresholds",
    "calibrated_thresholds",
    "check_context",
    "context_options",
    "parse_settings",
]

JudgeKind = Literal["trained", "llm", "heuristic"]


class CragThresholds(NamedTuple):
    """CRAG's decision thresholds on the evaluator's [-1, 1] scale."""

    upper: float
    lower: float
    strip: float


BUNDLED = "bundled"
"""`Context.action_evaluator`'s name for the action evaluator shipped in `models/artifacts`."""

HEURISTIC_THRESHOLDS = CragThresholds(upper=0.4, lower=-0.5, strip=-0.5)
"""Calibrated for the heuristic evaluator (MiniLM cosine blended with term overlap) on dev."""


@cache
def artifact_thresholds(folder: str) -> CragThresholds:
    """Return the thresholds a trained evaluator's artifact folder records (its manifest)."""
    from models.evaluator import load_thresholds

    recorded = load_thresholds(Path(folder).expanduser())
    return CragThresholds(recorded.upper, recorded.lower, recorded.strip_filter)


@cache
def calibrated_thresholds(evaluator: JudgeKind) -> CragThresholds:
    """Return the thresholds calibrated for an evaluator kind.

    The trained evaluator records its own in its manifest (chosen on the dev files); the LLM
    judge's probability-based scores share the heuristic's scale closely enough to use its.
    """
    if evaluator != "trained":
        return HEURISTIC_THRESHOLDS
    from models.artifact import MANIFEST
    from models.evaluator import ARTIFACT_DIR

    if not (ARTIFACT_DIR / MANIFEST).is_file():  # no artifact: the trained judge will say so
        return HEURISTIC_THRESHOLDS
    # An artifact whose thresholds are missing, or whose decision was chosen for other
    # weights, is refused with its own message: the heuristic's would be silently wrong.
    return artifact_thresholds(str(ARTIFACT_DIR))


def _opt(default: Any, description: str) -> Any:
    return field(default=default, metadata={"description": description})


_ENV = env_defaults()
"""This process's defaults for the models and the Chroma store (`graphs/env_defaults.py`)."""


@dataclass(kw_only=True)
class Context:
    """Every setting of one run: models per role, judges, thresholds, caps and stores."""

    # Models per role.
    generator_model: str = _opt(
        _ENV["generator_model"], "Chat model spec that writes answers and IRCoT sentences."
    )
    follow_up_model: str = _opt(
        _ENV["follow_up_model"], "Chat model spec of the `llm` follow-up rewriter (`follow_ups`)."
    )
    rewriter_model: str = _opt(
        _ENV["rewriter_model"], "Chat model spec that rewrites questions into search keywords."
    )
    judge_model: str = _opt(_ENV["judge_model"], "Chat model spec behind the `llm` judges.")
    answer_style: Literal["sentence", "short"] = _opt(
        "short",
        "Answer with the bare answer (the name, option, number or phrase; the more accurate, "
        "docs/answers.md), or in one short sentence.",
    )
    token_answers: bool = _opt(
        False,
        "Check option, key and exit-status answers against the entries of the kept strips: an "
        "answer naming a listed token becomes that token, one naming none is replaced by a "
        "schema-constrained choice (docs/answers.md); other questions keep the reader's answer.",
    )
    max_answer_tokens: int = _opt(96, "Token cap for each generated answer or IRCoT sentence.")
    repeat_penalty: float = _opt(
        1.15, "llama.cpp repetition penalty for answers (1.0 = off; tiny models loop without it)."
    )
    prompt_cache: bool = _opt(
        True,
        "llama.cpp reuses the previous prompt's KV cache; false gives each call a cold start "
        "(slower, but fair timing).",
    )

    # Judges.
    classifier: JudgeKind = _opt("trained", "Complexity classifier: trained, llm or heuristic.")
    route: Literal["auto", "A", "B", "C"] = _opt("auto", "Force a route instead of classifying.")
    evaluator: JudgeKind = _opt("trained", "Retrieval evaluator: trained, llm or heuristic.")
    action_evaluator: str | None = _opt(
        BUNDLED,
        "A second trained evaluator that grades retrievals for CRAG's action only (strips, "
        "their filter and abstention keep `evaluator`); its thresholds apply unless set. "
        f"{BUNDLED!r}: the one shipped with the trained evaluator, trained also on passages "
        "that share the question's topic but lack its answer (used with evaluator=trained); "
        "or the folder of another (`acrag train evaluator --out`); None (`--set "
        "action_evaluator=null`): `evaluator` does both.",
    )
    critic: Literal["llm", "heuristic"] = _opt(
        "heuristic",
        "Usefulness judge for reflection (and support checker unless `support` is set).",
    )
    support: JudgeKind | None = _opt(
        None, "Support checker (IsSup): trained, llm or heuristic; unset uses the `critic` kind."
    )
    judge_attempts: int = _opt(2, "Tries for a judge that returns junk before the safe fallback.")

    # CRAG. Unset thresholds take the values calibrated for the chosen evaluator.
    upper_threshold: float | None = _opt(
        None, "Correct if any passage scores at least this (in [-1, 1]; default: calibrated)."
    )
    lower_threshold: float | None = _opt(
        None, "Incorrect if every passage scores below this (default: calibrated)."
    )
    strip_threshold: float | None = _opt(
        None, "Strips scoring below this are dropped in refinement (default: calibrated)."
    )
    grade_windows: bool = _opt(
        True,
        "Grade each passage as the best of itself and its sentence windows: long passages hide "
        "their answer.",
    )
    strip_mode: Literal["sentences", "words", "passage"] = _opt(
        "sentences", "Split passages into sentence strips, fixed word windows, or keep them whole."
    )
    strip_sentences: int = _opt(
        2, "Sentences per strip (and per grading window); passages this short stay whole."
    )
    strip_words: int = _opt(40, "Words per window in `words` mode.")
    option_lists: Literal["sentences", "entries", "whole"] = _opt(
        "whole",
        "In `sentences` mode, how a passage that lists options or terms is cut: like prose, "
        "one strip per entry (head and description; the prose around them in sentence "
        "strips), or kept whole with its grade (the reader sees each option beside its "
        "neighbours, as retrieval found them).",
    )
    strips_top_k: int = _opt(5, "Strips kept as knowledge, joined in their original order.")

    # Retrieval and web search.
    top_k: int = _opt(4, "Passages per retrieval.")
    retrieval_mode: Literal["dense", "bm25", "hybrid"] = _opt("hybrid", "Local retriever kind.")
    home: str | None = _opt(None, "Data directory holding the index (default: $ACRAG_HOME).")
    chroma_url: str | None = _opt(
        _ENV["chroma_url"], "Chroma server URL; the embedded store when unset."
    )
    collection: str = _opt(_ENV["collection"], "Chroma collection of the local index.")
    web_backend: Literal["auto", "tavily", "local", "none"] = _opt(
        "auto", "Web search: Tavily with a key, else the local web corpus; none disables it."
    )
    web_k: int = _opt(5, "Web results per search.")
    ambiguous_query: Literal["question", "rewrite"] = _opt(
        "question",
        "What CRAG's Ambiguous action searches the web with: the question as asked (no LLM "
        "call; the local strips are kept either way) or keywords the rewriter writes, as for "
        "Incorrect.",
    )

    # IRCoT (route C).
    ircot_max_steps: int = _opt(5, "Reasoning steps before IRCoT stops without an answer.")
    ircot_max_paragraphs: int = _opt(15, "Paragraphs IRCoT may accumulate in total.")

    # Self-RAG reflection.
    reflect: bool = _opt(True, "Critique candidate answers and retry an unsupported one.")
    candidates: int = _opt(2, "Candidate answers, one per group of top strips.")
    w_rel: float = _opt(1.0, "Weight of IsRel (evidence relevance) in the ranking.")
    w_sup: float = _opt(1.0, "Weight of IsSup (answer supported by evidence).")
    w_use: float = _opt(0.5, "Weight of IsUse (usefulness).")
    use_logprobs: bool = _opt(True, "Add the answer's probability where the model reports it.")
    support_filter: bool = _opt(False, "Drop candidates judged to have no support at all.")
    max_retries: int = _opt(1, "Reflection retries when the best answer is unsupported.")
    retry_action: Literal["regenerate", "rewrite"] = _opt(
        "regenerate", "How to retry: regenerate, or rewrite the query and retrieve again."
    )

    # Abstention.
    abstain: bool = _opt(
        True, "Say the documents do not hold the answer when no kept evidence supports one."
    )
    abstain_below: float = _opt(
        -0.5, "Abstain when the best cited strip's evaluator score is below this ([-1, 1])."
    )
    verify_below: float | None = _opt(
        None,
        "Abstain when the reader, asked in a new chat whether the passages state its answer, "
        "says yes with probability below this (one extra one-token LLM call per candidate, "
        "the passages served from the prompt cache); None: no check.",
    )
    model_guess: bool = _opt(
        False, "When abstaining, add the model's own answer, labelled as a model-only guess."
    )

    # Conversation and input limits.
    condense_history: bool = _opt(True, "Rewrite follow-up questions into standalone ones.")
    follow_ups: Literal["llm", "write", "rules", "template"] = _opt(
        "llm",
        "Follow-up rewriter: llm (the follow-up model picks the referent, checked against the "
        "conversation, the rules when it fails), write (the follow-up model writes the whole "
        "question, checked; llm when the check fails), rules (pronoun rules, no model) or "
        "template.",
    )
    max_question_chars: int = _opt(2000, "Longest question accepted.")

    def action_evaluator_dir(self) -> Path | None:
        """Return the folder of the evaluator that grades for CRAG's action, if it is apart."""
        if self.action_evaluator is None:
            return None
        if self.action_evaluator == BUNDLED:
            from models.evaluator import ACTION_ARTIFACT_DIR

            return ACTION_ARTIFACT_DIR if self.evaluator == "trained" else None
        return Path(self.action_evaluator).expanduser()

    def crag_thresholds(self, action: Path | None = None) -> CragThresholds:
        """Return the CRAG thresholds: the ones set here, else the calibrated ones.

        Upper and lower come from the artifact in `action` when an evaluator apart from
        `evaluator` grades for the action (`Deps.action_evaluator_dir`), else from `evaluator`.
        """
        calibrated = calibrated_thresholds(self.evaluator)
        if action is not None:
            chosen = artifact_thresholds(str(action))
            calibrated = calibrated._replace(upper=chosen.upper, lower=chosen.lower)
        return CragThresholds(
            upper=calibrated.upper if self.upper_threshold is None else self.upper_threshold,
            lower=calibrated.lower if self.lower_threshold is None else self.lower_threshold,
            strip=calibrated.strip if self.strip_threshold is None else self.strip_threshold,
        )

    @classmethod
    def choices(cls, name: str) -> tuple[Any, ...]:
        """Return the values field `name` accepts when its type is a `Literal` (else ())."""
        hint = get_type_hints(cls)[name]
        parts = get_args(hint) if get_origin(hint) is not Literal else (hint,)
        literals = [a for a in parts if get_origin(a) is Literal]
        none = (None,) if type(None) in parts else ()
        return tuple(v for a in literals for v in get_args(a)) + none if literals else ()

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> "Context":
        """Return the Context of named settings (CLI flags, `--set`, a run request), checked.

        Raises:
            InvalidContextError: An unknown setting, a value outside its choices, or a range
                that cannot work.
        """
        known = sorted(f.name for f in fields(cls))
        for name, value in settings.items():
            if name not in known:
                raise InvalidContextError(f"unknown setting {name!r}; one of {', '.join(known)}")
            allowed = cls.choices(name)
            if allowed and value not in allowed:
                raise InvalidContextError(f"{name} must be one of {list(allowed)}, not {value!r}")
        return cls(**settings)

    def __post_init__(self) -> None:
        """Reject settings that cannot work, before any model runs."""
        check_context(self)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InvalidContextError(message)


def check_context(context: Context) -> None:
    """Raise InvalidContextError for settings that cannot work."""
    c = context
    for name in ("upper_threshold", "lower_threshold", "strip_threshold"):
        value = getattr(c, name)
        _require(value is None or -1.0 <= value <= 1.0, f"{name} must lie in [-1, 1]")
    if c.lower_threshold is not None and c.upper_threshold is not None:
        _require(
            c.lower_threshold <= c.upper_threshold,
            "thresholds must satisfy lower_threshold <= upper_threshold",
        )
    _require(
        c.action_evaluator in (None, BUNDLED) or Path(c.action_evaluator).expanduser().is_dir(),
        f"action_evaluator {c.action_evaluator!r} is not a folder (a trained evaluator's "
        f"artifact, as `acrag train evaluator --out` writes); {BUNDLED!r} is the shipped one, "
        "null lets `evaluator` decide the action",
    )
    for name in (
        "top_k",
        "strips_top_k",
        "strip_sentences",
        "strip_words",
        "candidates",
        "ircot_max_paragraphs",
        "max_answer_tokens",
        "judge_attempts",
        "max_question_chars",
        "web_k",
    ):
        _require(getattr(c, name) >= 1, f"{name} must be at least 1")
    _require(1 <= c.ircot_max_steps <= 50, "ircot_max_steps must lie in [1, 50]")
    _require(0 <= c.max_retries <= 50, "max_retries must lie in [0, 50]")
    _require(1.0 <= c.repeat_penalty <= 2.0, "repeat_penalty must lie in [1, 2]")
    for name in ("w_rel", "w_sup", "w_use"):
        _require(getattr(c, name) >= 0, f"{name} must not be negative")


def parse_settings(items: Iterable[str]) -> dict[str, Any]:
    """Parse KEY=VALUE settings (`--set`); values are JSON when they parse, else text.

    Raises:
        InvalidContextError: An item that is not KEY=VALUE with KEY a Context field.
    """
    known = {f.name for f in fields(Context)}
    settings: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in known:
            raise InvalidContextError(
                f"--set {item!r}: expected KEY=VALUE with KEY one of the Context "
                f"settings ({', '.join(sorted(known))})"
            )
        try:
            settings[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            settings[key.strip()] = value
    return settings


def context_options() -> list[tuple[str, Any, str]]:
    """Return (name, default, description) for every Context option, for docs and help."""
    return [(f.name, f.default, f.metadata["description"]) for f in fields(Context)]
