"""The real tavily-python client against the fake Tavily server on loopback."""

from collections.abc import Iterator

import pytest

from stores.tavily_search import TavilyWebSearch
from tests.fake_tavily import FakePage, FakeTavily

PAGES = [
    FakePage(
        "https://travel.example.com/paris", "Paris guide", "Paris is the capital of France. " * 30
    ),
    FakePage(
        "https://en.wikipedia.org/wiki/Paris",
        "Paris",
        "Paris is the capital and largest city of France.",
    ),
    FakePage("https://spam.example.net/paris", "Cheap Paris", "Capital of France deals."),
]


@pytest.fixture
def fake() -> Iterator[FakeTavily]:
    with FakeTavily(PAGES, slow_seconds=1.0) as server:
        yield server


def client(fake: FakeTavily, **options) -> TavilyWebSearch:
    defaults = {"retries": 2, "backoff": 0.01, "timeout": 0.4}
    return TavilyWebSearch(api_key="tvly-test", api_base_url=fake.url, **{**defaults, **options})


def test_success_sends_options_and_ranks_wikipedia_first(fake: FakeTavily) -> None:
    result = client(fake, exclude_domains=["example.net"]).search(
        "capital of France", max_results=2
    )
    assert result.degraded is None and result.backend == "tavily"
    assert [d.metadata["url"] for d in result.documents] == [
        "https://en.wikipedia.org/wiki/Paris",
        "https://travel.example.com/paris",
    ]
    assert result.documents[1].page_content == PAGES[0].content  # raw content, not the snippet
    (request,) = fake.requests
    assert request["path"] == "/search"
    assert request["headers"]["Authorization"] == "Bearer tvly-test"
    assert request["body"]["max_results"] == 2
    assert request["body"]["exclude_domains"] == ["example.net"]
    assert request["body"]["include_raw_content"] is True


def test_include_domains_restricts_results(fake: FakeTavily) -> None:
    result = client(fake, include_domains=["wikipedia.org"]).search("capital of France")
    assert [d.metadata["url"] for d in result.documents] == ["https://en.wikipedia.org/wiki/Paris"]


def test_429_then_success(fake: FakeTavily) -> None:
    fake.fail("429")
    result = client(fake).search("capital of France")
    assert result.degraded is None and len(result.documents) == 3
    assert len(fake.requests) == 2


def test_500_degrades_after_retries(fake: FakeTavily) -> None:
    fake.fail("500", "500", "500")
    result = client(fake).search("capital of France")
    assert result.documents == []
    assert result.degraded == "HTTP 500 from Tavily (gave up after 3 attempts)"
    assert len(fake.requests) == 3


def test_timeout_degrades(fake: FakeTavily) -> None:
    fake.fail("slow", "slow")
    result = client(fake, retries=1).search("capital of France")
    assert result.documents == [] and "timed out" in str(result.degraded)


def test_slow_then_fast_recovers(fake: FakeTavily) -> None:
    fake.fail("slow")
    assert len(client(fake).search("capital of France").documents) == 3


@pytest.mark.parametrize("action", ["malformed", "bad-shape"])
def test_malformed_body_degrades_without_retry(fake: FakeTavily, action: str) -> None:
    fake.fail(action)
    result = client(fake).search("capital of France")
    assert result.documents == [] and "malformed response" in str(result.degraded)
    assert len(fake.requests) == 1
