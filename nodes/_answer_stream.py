"""Emit the final answer into LangGraph's `messages` stream, token by token.

Self-RAG ranks several candidates before one becomes the answer, so the generator's own
tokens cannot be streamed live (they would mix candidates and judges). The chosen answer is
replayed instead through a chat model whose tokens are the answer's words; LangGraph's
`messages` stream picks them up from the callbacks like any model's tokens.
"""

import re
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from graphs.events import ANSWER_REPLAY_TAG

__all__ = ["stream_answer"]

_TOKENS = re.compile(r"\S+\s*|\s+")


class _AnswerReplay(BaseChatModel):
    """Stream a fixed text as word-sized tokens."""

    text: str

    @property
    def _llm_type(self) -> str:
        return "acrag-answer"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self.text))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for token in _TOKENS.findall(self.text):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=token))
            if run_manager:
                run_manager.on_llm_new_token(token, chunk=chunk)
            yield chunk


def stream_answer(text: str, *, name: str = "acrag") -> AIMessage:
    """Stream `text` into the run's `messages` stream and return it as one AI message.

    The returned message keeps the streamed message's id, so LangGraph does not emit it a
    second time when the node returns it in `messages`.
    """
    model = _AnswerReplay(text=text)
    merged: AIMessageChunk | None = None
    for chunk in model.stream([], config={"run_name": "answer", "tags": [ANSWER_REPLAY_TAG]}):
        merged = chunk if merged is None else merged + chunk
    return AIMessage(text, id=merged.id if merged else None, name=name)
