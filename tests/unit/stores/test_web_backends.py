from pathlib import Path
from typing import Any

import pytest
import requests
from langchain_core.documents import Document
from tavily import errors as tavily_errors

from stores.tavily_search import TavilyWebSearch, rank_authoritative
from stores.web import FallbackWebSearch, NoWebSearch, WebResults, make_web_search


class ScriptedClient:
    """Stands in for TavilyClient: each call pops the next outcome."""

    def __init__(self, *outcomes: Any) -> None:
        self.outcomes = list(outcomes)
        self.calls: list[dict[str, Any]] = []

    def search(self, query: str, **kwargs: Any) -> dict[str, Any]:
        self.calls.append({"query": query, **kwargs})
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def page(url: str, score: float = 0.5, raw: str | None = "Full page text.") -> dict[str, Any]:
    return {"url": url, "title": url, "content": "snippet", "score": score, "raw_content": raw}


def http_error(status: int) -> requests.HTTPError:
    response = requests.Response()
    response.status_code = status
    return requests.HTTPError(response=response)


def searcher(client: ScriptedClient, **options: Any) -> tuple[TavilyWebSearch, list[float]]:
    sleeps: list[float] = []
    search = TavilyWebSearch(api_key="test", retries=2, backoff=0.1, sleep=sleeps.append, **options)
    search.client = client  # type: ignore[assignment]
    return search, sleeps


def test_success_ranks_wikipedia_first_and_uses_raw_content() -> None:
    client = ScriptedClient(
        {
            "results": [
                page("https://blog.example.com/a", 0.9),
                page("https://en.wikipedia.org/wiki/A", 0.4),
            ]
        }
    )
    search, sleeps = searcher(client, include_domains=["example.com", "wikipedia.org"])
    result = search.search("a question", max_results=2)
    assert result.degraded is None and result.backend == "tavily" and sleeps == []
    assert [d.metadata["url"] for d in result.documents] == [
        "https://en.wikipedia.org/wiki/A",
        "https://blog.example.com/a",
    ]
    assert result.documents[0].page_content == "Full page text."
    assert result.documents[0].metadata["origin"] == "web"
    call = client.calls[0]
    assert call["max_results"] == 2 and call["include_raw_content"] is True
    assert call["include_domains"] == ["example.com", "wikipedia.org"]
    assert call["exclude_domains"] is None


def test_snippet_used_when_no_raw_content() -> None:
    search, _ = searcher(ScriptedClient({"results": [page("https://x.org", raw=None)]}))
    assert search.search("q").documents[0].page_content == "snippet"


@pytest.mark.parametrize(
    "transient",
    [
        tavily_errors.UsageLimitExceededError("slow down"),
        http_error(503),
        tavily_errors.TimeoutError(1.0),
        requests.ConnectionError("refused"),
    ],
)
def test_transient_errors_are_retried_with_backoff(transient: Exception) -> None:
    search, sleeps = searcher(ScriptedClient(transient, {"results": [page("https://x.org")]}))
    result = search.search("q")
    assert result.degraded is None and len(result.documents) == 1
    assert len(sleeps) == 1 and 0.1 <= sleeps[0] <= 0.125


def test_persistent_failure_degrades_after_retries() -> None:
    search, sleeps = searcher(ScriptedClient(http_error(500), http_error(502), http_error(500)))
    result = search.search("q")
    assert result.documents == [] and result.backend == "tavily"
    assert result.degraded == "HTTP 500 from Tavily (gave up after 3 attempts)"
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0]


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (tavily_errors.InvalidAPIKeyError("bad key"), "InvalidAPIKeyError"),
        (http_error(404), "HTTP 404"),
        (ValueError("Expecting value"), "malformed response"),
        ({"results": "oops"}, "malformed response"),
    ],
)
def test_fatal_errors_degrade_without_retry(outcome: Any, reason: str) -> None:
    search, sleeps = searcher(ScriptedClient(outcome))
    result = search.search("q")
    assert result.documents == [] and reason in str(result.degraded) and sleeps == []


def test_rank_authoritative_keeps_order_within_groups() -> None:
    docs = [
        Document("x", metadata={"url": u})
        for u in (
            "https://a.com",
            "https://de.wikipedia.org/x",
            "https://notwikipedia.org",
            "https://b.com",
        )
    ]
    ranked = rank_authoritative(docs, ["wikipedia.org"])
    assert [d.metadata["url"] for d in ranked] == [
        "https://de.wikipedia.org/x",
        "https://a.com",
        "https://notwikipedia.org",
        "https://b.com",
    ]


class Fixed:
    def __init__(self, result: WebResults) -> None:
        self.result = result

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        return self.result


def test_fallback_uses_next_backend_and_keeps_reason() -> None:
    hit = WebResults([Document("local page", metadata={"url": "file:///x"})], "local")
    result = FallbackWebSearch(Fixed(WebResults([], "tavily", "HTTP 500")), Fixed(hit)).search("q")
    assert result.backend == "local" and result.documents == hit.documents
    assert result.degraded == "tavily: HTTP 500"


def test_auto_without_key_or_corpus_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    search = make_web_search("auto", home=tmp_path)
    assert isinstance(search, NoWebSearch)
    result = search.search("q")
    assert result.backend == "none" and "TAVILY_API_KEY" in str(result.degraded)


def test_auto_with_key_is_tavily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    assert isinstance(make_web_search("auto", home=tmp_path), TavilyWebSearch)
    assert isinstance(make_web_search("none", home=tmp_path), NoWebSearch)
    with pytest.raises(ValueError):
        make_web_search("bing", home=tmp_path)  # type: ignore[arg-type]
