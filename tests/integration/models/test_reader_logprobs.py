"""The default reader reports token log-probabilities the answer-check features can read."""

import pytest

from bench.suites.reader_outcomes import token_logprobs
from models import load_chat_model
from models.answer_check import reader_features, span_logprobs
from models.defaults import DEFAULT_MODEL
from nodes.generate import answer_messages, clean_answer

pytestmark = pytest.mark.integration

STRIP = {
    "title": "Eiffel Tower",
    "text": "The Eiffel Tower was completed in March 1889 for the World's Fair in Paris.",
}


def test_the_real_reader_returns_the_answer_spans_logprobs() -> None:
    reader = load_chat_model(DEFAULT_MODEL, max_tokens=24)
    messages = answer_messages("In what year was the Eiffel Tower completed?", [STRIP], short=True)
    reply = reader.invoke(messages, logprobs=True)
    tokens = token_logprobs(reply.response_metadata)
    answer = clean_answer(str(reply.content), short=True)
    assert "1889" in answer
    assert tokens and all(logprob <= 0 for _, logprob in tokens)
    assert "".join(token for token, _ in tokens).strip().startswith(answer[:4])
    span = span_logprobs(tokens)
    assert span is not None and span[1] <= span[0] <= 0
    assert reader_features(answer, tokens, ["1889"])["agreement"] > 0
    plain = reader.invoke(messages)  # logprobs are only there when asked for
    assert "logprobs" not in plain.response_metadata and str(plain.content) == str(reply.content)
