"""What the nodes use: chat models, retriever, web search and judges, built from `Context`.

`Deps` holds optional injected objects (tests pass fakes, callers pass their own); anything not
injected is built from the run's Context on first use and cached per setting.
"""

import threading
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from graphs.context import BUNDLED, Context, CragThresholds
from models.chat import load_chat_model
from models.embeddings import MiniLMEmbeddings
from models.followup import FollowUpRewriter, RulesRewriter, TemplateRewriter
from models.followup_choice import ChoiceRewriter
from models.followup_write import WriteRewriter
from models.judges import ComplexityClassifier, RetrievalEvaluator, SupportChecker, UsefulnessJudge
from models.registry import JudgeUnavailableError, build_judge
from stores.home import acrag_home
from stores.web import WebSearch, make_web_search

__all__ = ["Deps", "JudgeUnavailableError", "make_classifier", "make_evaluator"]


@cache
def _chat_model(
    spec: str, *, repeat_penalty: float | None = None, prompt_cache: bool = True
) -> BaseChatModel:
    return load_chat_model(spec, repeat_penalty=repeat_penalty, prompt_cache=prompt_cache)


@cache
def _minilm() -> MiniLMEmbeddings:
    return MiniLMEmbeddings(precision="fp32")  # the heuristic was calibrated on fp32 vectors


@cache
def _judge(kind: str, role: str, judge_model: str, *, prompt_cache: bool = True) -> Any:
    return build_judge(
        kind,
        role,
        chat=lambda: _chat_model(judge_model, prompt_cache=prompt_cache),
        embeddings=_minilm,
    )


def make_classifier(context: Context) -> ComplexityClassifier:
    """Return the complexity classifier the Context names."""
    judge: ComplexityClassifier = _judge(
        context.classifier, "classifier", context.judge_model, prompt_cache=context.prompt_cache
    )
    return judge


def make_evaluator(context: Context) -> RetrievalEvaluator:
    """Return the retrieval evaluator the Context names."""
    judge: RetrievalEvaluator = _judge(
        context.evaluator, "evaluator", context.judge_model, prompt_cache=context.prompt_cache
    )
    return judge


def _artifact_evaluator(folder: str) -> RetrievalEvaluator:
    from models.evaluator import load_evaluator

    try:
        return load_evaluator(Path(folder).expanduser())
    except (OSError, ValueError) as error:  # an ArtifactError is an OSError
        raise JudgeUnavailableError(
            f"the action evaluator at {folder} is not available ({error})"
        ) from error


_stores_lock = threading.Lock()


@lru_cache(maxsize=8)  # bounded: a server or a labelling run may see many homes
def _retriever(
    home: str | None, k: int, mode: Any, url: str | None, collection: str
) -> BaseRetriever:
    from stores.retrieval import make_retriever  # chromadb: imported on the first retrieval

    with _stores_lock:
        return make_retriever(
            home=acrag_home(home),
            k=k,
            mode=mode,
            chroma_url=url,
            collection=collection,
        )


@lru_cache(maxsize=8)
def _web(backend: str, home: str | None) -> WebSearch:
    return make_web_search(backend, home=acrag_home(home))  # type: ignore[arg-type]


@dataclass
class Deps:
    """Injected collaborators; None means "build from the Context"."""

    generator: BaseChatModel | None = None
    rewriter: BaseChatModel | None = None
    retriever: BaseRetriever | None = None
    web: WebSearch | None = None
    classifier: ComplexityClassifier | None = None
    evaluator: RetrievalEvaluator | None = None
    action_evaluator: RetrievalEvaluator | None = None
    support: SupportChecker | None = None
    usefulness: UsefulnessJudge | None = None

    def generator_for(self, context: Context) -> BaseChatModel:
        """Return the answer and IRCoT model."""
        return self.generator or _chat_model(
            context.generator_model,
            repeat_penalty=context.repeat_penalty,
            prompt_cache=context.prompt_cache,
        )

    def rewriter_for(self, context: Context) -> BaseChatModel:
        """Return the model that condenses follow-ups and writes keywords."""
        return self.rewriter or _chat_model(
            context.rewriter_model, prompt_cache=context.prompt_cache
        )

    def follow_up_model_for(self, context: Context) -> BaseChatModel:
        """Return the model of the `llm` follow-up rewriter (an injected rewriter wins)."""
        return self.rewriter or _chat_model(
            context.follow_up_model, prompt_cache=context.prompt_cache
        )

    def follow_ups_for(self, context: Context) -> FollowUpRewriter:
        """Return the follow-up rewriter `context.follow_ups` names."""
        if context.follow_ups == "rules":
            return RulesRewriter()
        if context.follow_ups == "template":
            return TemplateRewriter()
        choice = ChoiceRewriter(
            lambda: self.follow_up_model_for(context), attempts=context.judge_attempts
        )
        if context.follow_ups == "write":
            return WriteRewriter(
                lambda: self.follow_up_model_for(context),
                fallback=choice,
                attempts=context.judge_attempts,
            )
        return choice

    def retriever_for(self, context: Context) -> BaseRetriever:
        """Return the local retriever."""
        if self.retriever is not None:
            return self.retriever
        home = str(Path(context.home).expanduser()) if context.home else None
        mode, url = context.retrieval_mode, context.chroma_url
        retriever: BaseRetriever = _retriever(home, context.top_k, mode, url, context.collection)
        return retriever

    def web_for(self, context: Context) -> WebSearch:
        """Return the web search backend."""
        return self.web or _web(context.web_backend, context.home)

    def classifier_for(self, context: Context) -> ComplexityClassifier:
        """Return the complexity classifier."""
        return self.classifier or make_classifier(context)

    def evaluator_for(self, context: Context) -> RetrievalEvaluator:
        """Return the retrieval evaluator."""
        return self.evaluator or make_evaluator(context)

    def action_evaluator_for(self, context: Context) -> RetrievalEvaluator | None:
        """Return the evaluator that grades for CRAG's action, when it is not `evaluator`.

        Raises:
            JudgeUnavailableError: The folder `context.action_evaluator` names holds no
                loadable evaluator.
        """
        if self.action_evaluator is not None:
            return self.action_evaluator
        folder = self.action_evaluator_dir(context)
        return None if folder is None else _artifact_evaluator(str(folder))

    def action_evaluator_dir(self, context: Context) -> Path | None:
        """Return the folder of the artifact that grades for CRAG's action, if one does.

        The bundled one is the trained evaluator's partner: an injected evaluator goes alone.
        """
        if self.evaluator is not None and context.action_evaluator == BUNDLED:
            return None
        return context.action_evaluator_dir()

    def grades_action_apart(self, context: Context) -> bool:
        """Whether CRAG's action is graded by an evaluator other than `evaluator`."""
        return self.action_evaluator is not None or self.action_evaluator_dir(context) is not None

    def crag_thresholds(self, context: Context) -> CragThresholds:
        """Return CRAG's thresholds for the evaluator that decides the action."""
        return context.crag_thresholds(self.action_evaluator_dir(context))

    def support_for(self, context: Context) -> SupportChecker:
        """Return the support checker (IsSup)."""
        kind = context.support or context.critic
        judge: SupportChecker = self.support or _judge(
            kind, "support", context.judge_model, prompt_cache=context.prompt_cache
        )
        return judge

    def usefulness_for(self, context: Context) -> UsefulnessJudge:
        """Return the usefulness judge (IsUse)."""
        judge: UsefulnessJudge = self.usefulness or _judge(
            context.critic, "usefulness", context.judge_model, prompt_cache=context.prompt_cache
        )
        return judge
