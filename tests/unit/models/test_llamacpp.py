import json
import threading
import time
from typing import Any

import pytest
from pydantic import BaseModel

from models.errors import PromptError
from models.llamacpp import ChatLlamaCpp, LlamaCppEngine, LlamaCppError, StopGuard


class FakeServer:
    """Speaks xllamacpp's chat API: replies with scripted pieces, optionally streamed."""

    def __init__(
        self,
        pieces: list[str],
        *,
        delay: float = 0.0,
        error: Any = None,
        timings: dict[str, Any] | None = None,
    ) -> None:
        self.pieces = pieces
        self.delay = delay
        self.error = error
        self.timings = timings
        self.requests: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self._count_lock = threading.Lock()

    def handle_chat_completions(self, request: dict[str, Any], *callback: Any) -> Any:
        with self._count_lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            self.requests.append(request)
            time.sleep(self.delay)
            if self.error is not None:
                if callback:
                    callback[0](self.error)
                    return None
                return self.error
            if callback:
                for piece in self.pieces:
                    callback[0]({"choices": [{"delta": {"content": piece}, "finish_reason": None}]})
                last = {"choices": [{"delta": {}, "finish_reason": "stop"}]}
                callback[0](last | ({"timings": self.timings} if self.timings else {}))
                return None
            message = {"role": "assistant", "content": "".join(self.pieces)}
            usage = {"prompt_tokens": 5, "completion_tokens": len(self.pieces), "total_tokens": 9}
            choice = {"message": message, "finish_reason": "stop", "logprobs": {"content": []}}
            response = {"choices": [choice], "usage": usage}
            return response | ({"timings": self.timings} if self.timings else {})
        finally:
            with self._count_lock:
                self.active -= 1


def _model(server: FakeServer, **kwargs: Any) -> ChatLlamaCpp:
    return ChatLlamaCpp(model_path="fake.gguf", engine=LlamaCppEngine(server), **kwargs)


def test_invoke_returns_text_usage_and_sends_settings() -> None:
    server = FakeServer(["Paris", " is", " the", " capital."])
    reply = _model(server, temperature=0.3, max_tokens=12).invoke("Capital of France?")
    assert reply.content == "Paris is the capital."
    assert reply.usage_metadata == {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9}
    request = server.requests[0]
    assert request["messages"] == [{"role": "user", "content": "Capital of France?"}]
    assert (request["temperature"], request["max_tokens"], request["stream"]) == (0.3, 12, False)


def test_stream_joins_to_the_same_text_as_invoke() -> None:
    model = _model(FakeServer(["The", " answer", " is", ": 42", "."]))
    chunks = [chunk.content for chunk in model.stream("q")]
    assert len([c for c in chunks if c]) > 1
    assert "".join(map(str, chunks)) == model.invoke("q").content == "The answer is: 42."


def test_stop_sequence_cuts_invoke_and_stream_even_if_backend_ignores_it() -> None:
    model = _model(FakeServer(["one", " two", " ST", "OP three"]))
    assert model.invoke("q", stop=["STOP"]).content == "one two "
    streamed = "".join(str(chunk.content) for chunk in model.stream("q", stop=["STOP"]))
    assert streamed == "one two "


def test_stop_guard_holds_back_partial_matches_across_chunks() -> None:
    guard = StopGuard(["\n\nQuestion:"])
    assert guard.feed("Answer: Paris\n") == "Answer: Paris"
    assert guard.feed("\nQues") == ""
    assert guard.feed("tion: next") == ""
    assert guard.stopped
    assert guard.flush() == ""


def test_stop_guard_releases_a_false_alarm() -> None:
    guard = StopGuard(["END"])
    assert guard.feed("the E") == "the "
    assert guard.feed("nd of it") == "End of it"
    assert guard.feed(" EN") == " "
    assert guard.flush() == "EN"


def test_empty_prompt_is_refused_before_any_model_call() -> None:
    server = FakeServer(["x"])
    with pytest.raises(PromptError, match="empty"):
        _model(server).invoke("   \n")
    assert server.requests == []


def test_context_overflow_becomes_a_clear_prompt_error() -> None:
    overflow = {
        "error": {"type": "exceed_context_size_error", "n_prompt_tokens": 9000, "n_ctx": 4096}
    }
    for call in ("invoke", "stream"):
        model = _model(FakeServer([], error=overflow))
        with pytest.raises(PromptError, match="9000 tokens.*4096"):
            result = getattr(model, call)("long")
            list(result) if call == "stream" else None


def test_other_backend_errors_are_named() -> None:
    model = _model(FakeServer([], error={"error": {"message": "slot unavailable"}}))
    with pytest.raises(LlamaCppError, match="slot unavailable"):
        model.invoke("q")


def test_junk_response_is_an_error_not_a_crash() -> None:
    class Junk(FakeServer):
        def handle_chat_completions(self, request: dict[str, Any], *callback: Any) -> Any:
            return "not json"

    with pytest.raises(LlamaCppError, match="not a JSON object"):
        _model(Junk([])).invoke("q")


def test_one_engine_never_serves_two_threads_at_once() -> None:
    server = FakeServer(["ok"], delay=0.02)
    model = _model(server)
    results = model.batch([f"q{i}" for i in range(6)], config={"max_concurrency": 6})
    streamed = []
    workers = [
        threading.Thread(
            target=lambda: streamed.append("".join(str(c.content) for c in model.stream("s")))
        )
        for _ in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert [r.content for r in results] == ["ok"] * 6
    assert streamed == ["ok"] * 3
    assert server.max_active == 1


def test_structured_output_sends_the_schema_and_parses_the_reply() -> None:
    class City(BaseModel):
        name: str
        country: str

    server = FakeServer([json.dumps({"name": "Paris", "country": "France"})])
    city = _model(server).with_structured_output(City).invoke("capital of France?")
    assert city == City(name="Paris", country="France")
    response_format = server.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"]["required"] == ["name", "country"]


def test_structured_output_include_raw_reports_parse_errors() -> None:
    server = FakeServer(["no json here"])
    result = _model(server).with_structured_output({"type": "object"}, include_raw=True).invoke("q")
    assert result["parsed"] is None
    assert result["parsing_error"] is not None
    assert result["raw"].content == "no json here"


def test_logprobs_are_requested_and_returned() -> None:
    server = FakeServer(["x"])
    reply = _model(server, logprobs=True, top_logprobs=2).invoke("q")
    assert server.requests[0]["logprobs"] is True
    assert server.requests[0]["top_logprobs"] == 2
    assert reply.response_metadata["logprobs"] == {"content": []}


def test_prompt_cache_off_asks_llama_cpp_for_a_cold_start() -> None:
    warm, cold = FakeServer(["ok"]), FakeServer(["ok"])
    _model(warm).invoke("q")
    list(_model(warm).stream("q"))
    _model(cold, prompt_cache=False).invoke("q")
    list(_model(cold, prompt_cache=False).stream("q"))
    assert all("cache_prompt" not in request for request in warm.requests)
    assert [request["cache_prompt"] for request in cold.requests] == [False, False]


LLAMA_TIMINGS = {
    "cache_n": 3,
    "prompt_n": 12,
    "prompt_ms": 40.5,
    "prompt_per_second": 296.3,
    "predicted_n": 4,
    "predicted_ms": 80.0,
    "predicted_per_token_ms": 20.0,
}


def test_llama_cpp_timings_land_in_the_response_metadata() -> None:
    kept = {"cache_n": 3, "prompt_n": 12, "prompt_ms": 40.5, "predicted_n": 4, "predicted_ms": 80.0}
    model = _model(FakeServer(["Paris", "."], timings=LLAMA_TIMINGS))
    assert model.invoke("q").response_metadata["timings"] == kept
    chunks = list(model.stream("q"))
    timed = [c.response_metadata["timings"] for c in chunks if "timings" in c.response_metadata]
    assert timed == [kept]  # once, with the last chunk
    joined = chunks[0]
    for chunk in chunks[1:]:
        joined += chunk
    assert joined.response_metadata["timings"] == kept  # merged once, not summed


def test_a_response_without_timings_has_no_timings_entry() -> None:
    model = _model(FakeServer(["ok"]))
    assert "timings" not in model.invoke("q").response_metadata
    assert all("timings" not in c.response_metadata for c in model.stream("q"))
