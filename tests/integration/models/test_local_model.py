"""The real SmolLM2 model through llama.cpp, and the real MiniLM embeddings."""

from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel, Field

from models import MiniLMEmbeddings, load_chat_model
from models.errors import ModelFileError, PromptError

CONTEXT_QUESTION = (
    "Context: Paris is the capital and largest city of France.\n"
    "Question: What is the capital of France? Answer briefly."
)


@pytest.fixture(scope="module")
def model():
    return load_chat_model("local", max_tokens=48, n_ctx=2048)


def test_answers_paris_from_context(model) -> None:
    assert "Paris" in str(model.invoke(CONTEXT_QUESTION).content)


def test_streamed_chunks_join_to_the_invoked_text(model) -> None:
    chunks = [str(chunk.content) for chunk in model.stream(CONTEXT_QUESTION)]
    assert len([c for c in chunks if c]) > 2
    assert "".join(chunks) == model.invoke(CONTEXT_QUESTION).content


def test_stop_sequence_and_max_tokens_are_honoured(model) -> None:
    text = str(model.invoke("List the numbers 1, 2, 3, 4, 5, 6, 7.", stop=["4"]).content)
    assert "4" not in text
    short = model.invoke("Write a long story about a dragon.", max_tokens=5)
    assert short.usage_metadata["output_tokens"] <= 5
    assert short.response_metadata["finish_reason"] == "length"


class Person(BaseModel):
    name: str
    age: int


class Verdict(BaseModel):
    relevant: bool
    reason: str = Field(max_length=200)


class Keywords(BaseModel):
    keywords: list[str] = Field(max_length=3)


class Rating(BaseModel):
    score: int = Field(ge=1, le=5)


class Capital(BaseModel):
    city: str
    country: str


@pytest.mark.parametrize(
    ("schema", "prompt"),
    [
        (Person, "Alice is 31 years old. Give her name and age."),
        (Verdict, "Is 'The Eiffel Tower is in Paris' relevant to 'Where is the Eiffel Tower?'"),
        (Keywords, "Give up to three search keywords for: What is Henry Feilden's occupation?"),
        (Rating, "Rate from 1 to 5 how useful the answer 'Paris' is to 'Capital of France?'"),
        (Capital, "What is the capital of Japan?"),
    ],
)
def test_schema_output_parses_into_the_pydantic_model(model, schema, prompt) -> None:
    result = model.with_structured_output(schema).invoke(prompt, max_tokens=96)
    assert isinstance(result, schema)


def test_logprobs_come_back_per_token() -> None:
    reply = load_chat_model("local", logprobs=True, top_logprobs=2, max_tokens=4).invoke("Hi")
    tokens = reply.response_metadata["logprobs"]["content"]
    assert 1 <= len(tokens) <= 4
    assert all(token["logprob"] <= 0 for token in tokens)


def test_prompt_longer_than_the_context_is_a_clear_error() -> None:
    small = load_chat_model("local", n_ctx=256)
    with pytest.raises(PromptError, match="context holds 256"):
        small.invoke("word " * 1000)


def test_corrupt_model_file_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(4096))
    with pytest.raises(ModelFileError, match="could not load"):
        load_chat_model(f"gguf:{broken}").invoke("hi")


def test_embeddings_rank_a_relevant_sentence_first() -> None:
    embeddings = MiniLMEmbeddings()
    query = np.array(embeddings.embed_query("Who wrote the novel Pride and Prejudice?"))
    passages = [
        "The stock market fell sharply on Tuesday after the rate decision.",
        "Pride and Prejudice is an 1813 novel by the English author Jane Austen.",
    ]
    vectors = np.array(embeddings.embed_documents(passages))
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    irrelevant, relevant = vectors @ query
    assert relevant > irrelevant + 0.2
