"""Web search faults inside a graph run: the real tavily client against the fake Tavily server."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.errors import GraphRecursionError

from graphs import Context, build_graph
from stores.web import make_web_search
from tests.fake_tavily import FakePage, FakeTavily
from tests.fakes import (
    FakeClassifier,
    FakeRetriever,
    FixedSupport,
    FixedUsefulness,
    KeywordEvaluator,
    local_doc,
    rule_model,
)

PAGES = [
    FakePage(
        "https://en.wikipedia.org/wiki/Paris",
        "Paris",
        "Paris is the capital and largest city of France, on the Seine river.",
    )
]
QUESTION = "What is the capital of France?"


@pytest.fixture
def fake() -> Iterator[FakeTavily]:
    with FakeTavily(PAGES, slow_seconds=1.0) as server:
        yield server


def ask(fake: FakeTavily, tmp_path: Path) -> dict:
    web = make_web_search(
        "tavily",
        home=tmp_path,
        api_key="tvly-test",
        api_base_url=fake.url,
        retries=2,
        backoff=0.01,
        timeout=0.4,
    )
    graph = build_graph(
        generator=rule_model(default="Paris."),
        rewriter=rule_model(default="capital, France"),
        retriever=FakeRetriever(
            documents=[local_doc("Bananas are yellow.", title="B")], queries=[]
        ),
        web_search=web,
        classifier=FakeClassifier("B"),
        evaluator=KeywordEvaluator(("Seine",)),  # the local passage misses: CRAG goes to the web
        support=FixedSupport(otherwise="full"),
        usefulness=FixedUsefulness(),
    )
    try:
        return graph.invoke({"question": QUESTION}, context=Context(web_backend="tavily"))
    except GraphRecursionError:  # pragma: no cover - the failure this suite guards against
        pytest.fail("a web fault ended in GraphRecursionError")


def web_event(result: dict) -> dict:
    [found] = [e for e in result["events"] if e["type"] == "web_results"]
    return found


FAULTS = {
    "429-every-attempt": (
        ("429", "429", "429"),
        "rate limited (429) rate limit exceeded (gave up after 3 attempts)",
        3,
    ),
    "500-every-attempt": (
        ("500", "500", "500"),
        "HTTP 500 from Tavily (gave up after 3 attempts)",
        3,
    ),
    "timeout-every-attempt": (("slow", "slow", "slow"), "timed out", 3),
    "malformed-body": (("malformed",), "malformed response", 1),
    "bad-shape-body": (("bad-shape",), "malformed response", 1),
}


@pytest.mark.parametrize("case", list(FAULTS), ids=list(FAULTS))
def test_web_fault_degrades_with_the_reason_in_events_and_answer(
    case: str, fake: FakeTavily, tmp_path: Path
) -> None:
    actions, reason, requests = FAULTS[case]
    fake.fail(*actions)
    result = ask(fake, tmp_path)
    event = web_event(result)
    assert event["backend"] == "tavily" and reason in event["degraded"]
    assert event["results"] == []
    assert f"Degraded: {event['degraded']}." in result["notes"]
    assert len(fake.requests) == requests  # bounded: the client's retries, no more
    # the local passage was judged Incorrect and the web gave nothing: no evidence is left,
    # so the answer says so instead of guessing
    assert result["abstained"] and "could not find" in result["answer"]


@pytest.mark.parametrize("first", ["429", "500", "slow"])
def test_one_transient_web_fault_recovers_within_the_run(
    first: str, fake: FakeTavily, tmp_path: Path
) -> None:
    fake.fail(first)
    result = ask(fake, tmp_path)
    event = web_event(result)
    assert event["degraded"] is None and event["results"]
    assert result["notes"] == []
    assert any("wikipedia.org/wiki/Paris" in (c["url"] or "") for c in result["citations"])
    assert len(fake.requests) == 2
