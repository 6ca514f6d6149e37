import os
from pathlib import Path

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graphs import Context, InvalidQuestionError, build_graph
from nodes.finalize import NOT_IN_DOCUMENTS, OVERLAP_CITATIONS
from prompts.ircot import IRCOT_SYSTEM
from tests.fakes import (
    FakeClassifier,
    FakeRetriever,
    FakeWebSearch,
    FixedSupport,
    FixedUsefulness,
    KeywordEvaluator,
    follow_up_reply,
    local_doc,
    rule_model,
    structured_model,
    web_doc,
)

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"
ANSWERING = "Answer:"
"""Ends every answer prompt, and no IRCoT prompt: rules for it come first."""
QUESTION = "What is the capital of France?"
ANSWER = "Paris is the capital of France."
DOCS = [
    local_doc("Paris is the capital of France. It lies on the Seine.", title="Paris", position=1),
    local_doc("Berlin is the capital of Germany. It has many museums.", title="Berlin", position=2),
]
WEB = [
    web_doc(
        "Paris has been the capital of France for many centuries now.",
        title="Paris (web)",
        url="https://en.wikipedia.org/wiki/Paris",
    )
]


def make_graph(
    *,
    keywords=("Paris",),
    hit=0.9,
    miss=-0.9,
    generator=None,
    classifier_route="B",
    support=None,
    checkpointer=None,
):
    generator = generator or rule_model(
        [(ANSWERING, ANSWER), (IRCOT_SYSTEM, "So the answer is: Paris.")]
    )
    rewriter = structured_model(
        [("Last question", follow_up_reply("What is the capital of France?", "France"))],
        default="France, capital",
    )
    return build_graph(
        generator=generator,
        rewriter=rewriter,
        retriever=FakeRetriever(documents=list(DOCS), queries=[]),
        web_search=FakeWebSearch(list(WEB)),
        classifier=FakeClassifier(classifier_route),
        evaluator=KeywordEvaluator(tuple(keywords), hit=hit, miss=miss),
        support=support or FixedSupport("Paris"),
        usefulness=FixedUsefulness(),
        checkpointer=checkpointer,
    )


def run_events(graph, context, question=QUESTION):
    events, final = [], None
    for _ns, mode, chunk in graph.stream(
        {"question": question}, context=context, stream_mode=["custom", "values"], subgraphs=True
    ):
        if mode == "custom":
            events.append(chunk)
        elif not _ns:
            final = chunk
    return events, final


def types(events):
    return [e["type"] for e in events]


def test_topology_matches_snapshot():
    mermaid = build_graph().get_graph(xray=True).draw_mermaid()
    if os.environ.get("UPDATE_SNAPSHOTS"):  # after a deliberate topology change
        SNAPSHOT.write_text(mermaid)
    assert mermaid == SNAPSHOT.read_text()
    for name in (
        "classify_complexity",
        "retrieve",
        "grade_documents",
        "refine_strips",
        "rewrite_query",
        "rewrite_for_retrieval",
        "web_search",
        "ircot_step",
        "generate",
        "reflect",
        "finalize",
    ):
        assert f"({name})" in mermaid
    assert "rewrite_query --> web_search;" in mermaid  # a plain edge: no purpose handshake
    assert "rewrite_for_retrieval --> retrieve;" in mermaid


def test_route_a_answers_without_retrieval():
    events, final = run_events(make_graph(), Context(route="A"))
    assert types(events) == ["question", "route", "critique", "answer"]
    assert final["answer"] == ANSWER
    assert final.get("passages") == [] and final["citations"] == []
    assert final["abstained"] is False  # no retrieval route: nothing to abstain from


def test_route_b_correct_refines_and_cites():
    events, final = run_events(make_graph(), Context(route="B"))
    assert types(events) == [
        "question",
        "route",
        "retrieval",
        "grades",
        "crag_action",
        "strips",
        "critique",
        "answer",
    ]
    assert events[4]["action"] == "Correct" and events[4]["best"] == 0.9
    assert final["citations"][0]["source"] == "corpus.md" and final["citations"][0]["position"] == 1
    assert final["answer"] == ANSWER  # bare: markers and sources are data beside it
    message = final["messages"][-1]
    assert message.text == ANSWER and "Sources" not in message.text
    assert message.response_metadata["citations"] == final["citations"]
    assert message.response_metadata["abstained"] is False
    assert events[-1]["citations"] == final["citations"] and events[-1]["revised"] is False


def test_route_b_incorrect_searches_the_web():
    graph = make_graph(keywords=("centuries",))
    events, final = run_events(graph, Context(route="B"))
    assert types(events) == [
        "question",
        "route",
        "retrieval",
        "grades",
        "crag_action",
        "rewrite",
        "web_results",
        "strips",
        "critique",
        "answer",
    ]
    assert events[4]["action"] == "Incorrect"
    assert events[5]["query"] == "France, capital" and events[5]["note"] is None
    assert events[5]["purpose"] == "web"
    assert [c["origin"] for c in final["citations"]] == ["web"]
    assert final["citations"][0]["url"] == "https://en.wikipedia.org/wiki/Paris"
    web = [p for p in final["passages"] if p["origin"] == "web"]
    assert web and all(p["score"] is None for p in web)  # not graded by origin
    assert [s["kept"] for s in events[7]["strips"] if s["label"].startswith("https://")] == [True]


def test_route_b_ambiguous_uses_local_and_web():
    graph = make_graph(keywords=("Paris",), hit=0.0, miss=0.0)
    events, final = run_events(graph, Context(route="B"))
    assert types(events) == [
        "question",
        "route",
        "retrieval",
        "grades",
        "crag_action",
        "strips",
        "rewrite",
        "web_results",
        "strips",
        "critique",
        "answer",
    ]
    assert events[4]["action"] == "Ambiguous"
    origins = {s["origin"] for s in final["strips"] if s["kept"]}
    assert origins == {"local", "web"}


def test_route_c_runs_ircot_until_the_answer():
    generator = rule_model(
        [
            (ANSWERING, ANSWER),
            ("France has a capital city.", "So the answer is: Paris."),
            (IRCOT_SYSTEM, "France has a capital city."),
        ]
    )
    events, final = run_events(make_graph(generator=generator), Context(route="C"))
    assert types(events) == [
        "question",
        "route",
        *["retrieval", "grades", "strips", "ircot_step"],
        *["retrieval", "strips", "ircot_step"],  # nothing new to grade: no CRAG inside IRCoT
        "critique",
        "answer",
    ]
    assert final["reasoning"] == ["France has a capital city.", "So the answer is: Paris."]
    assert final["ircot_answer"] == "Paris"
    assert final["ircot_done"] == "answer"
    assert final["ircot_done_reason"] == "the reasoning reached an answer"
    assert final["retrievals"] == 2 and final["crag_action"] is None
    assert events[6]["query"] == "France has a capital city."  # the sentence is the next query
    assert "<reasoning>" in generator.calls[-1][1]  # the answer uses the chain
    assert final["answer"] == ANSWER


def test_ircot_cap_gives_a_graceful_answer():
    chain = [  # each sentence says something new that a kept strip holds
        "The capital of France is Paris.",
        "Paris is on the Seine.",
        "So Paris lies on the Seine.",
        "Step four.",
    ]
    rules = [(chain[n - 1], chain[n]) for n in range(3, 0, -1)]  # the latest sentence first
    generator = rule_model([(ANSWERING, ANSWER), *rules, (IRCOT_SYSTEM, chain[0])])
    events, final = run_events(
        make_graph(generator=generator), Context(route="C", ircot_max_steps=3)
    )
    assert types(events).count("ircot_step") == 3
    cap = next(e for e in events if e["type"] == "cap_reached")
    assert cap["cap"] == "ircot_max_steps" and cap["limit"] == 3
    assert final["ircot_done"] == "cap" and final["ircot_done_reason"] == cap["reason"]
    assert cap["reason"].startswith("IRCoT reached its cap of 3 steps")
    assert final["reasoning"] == chain[:3]
    assert final["answer"] == ANSWER


def test_ircot_ends_when_a_step_finds_and_says_nothing_new():
    generator = rule_model(
        [
            (ANSWERING, ANSWER),
            ("The capital of France is Paris.", "France has Paris as capital."),
            (IRCOT_SYSTEM, "The capital of France is Paris."),
        ]
    )
    events, final = run_events(
        make_graph(generator=generator), Context(route="C", ircot_max_steps=5)
    )
    assert final["ircot_steps"] == 2 and "cap_reached" not in types(events)
    assert final["ircot_done"] == "no_progress"
    assert final["ircot_done_reason"].startswith("nothing new retrieved or said")
    assert final["answer"] == ANSWER


def test_unsupported_answer_retries_then_says_why():
    support = FixedSupport(needle="never", otherwise="none")
    generator = rule_model([(ANSWERING, ANSWER)])
    events, final = run_events(
        make_graph(generator=generator, support=support), Context(route="B", max_retries=2)
    )
    assert types(events).count("retry") == 2
    assert types(events).count("critique") == 3
    # still unsupported at the cap: the answer says the documents do not hold it
    assert final["abstained"] and final["answer"] == NOT_IN_DOCUMENTS
    assert final["notes"] == [
        "Stopped early: the answer is not supported by the evidence after 2 retries (cap reached)."
    ]
    assert events[-1]["notes"] == final["notes"]


def test_rewrite_retry_retrieves_again():
    support = FixedSupport(needle="never", otherwise="none")
    graph = make_graph(support=support)
    events, final = run_events(graph, Context(route="B", max_retries=1, retry_action="rewrite"))
    rewrites = [e for e in events if e["type"] == "rewrite"]
    assert (rewrites[0]["purpose"], rewrites[0]["query"]) == ("retrieve", "France, capital")
    after = types(events)[types(events).index("retry") :]
    assert after[:3] == ["retry", "rewrite", "retrieval"]  # reflect -> rewrite -> retrieve
    assert final["retrievals"] == 2 and final["retry"] is None


def test_small_recursion_limit_never_raises():
    support = FixedSupport(needle="never", otherwise="none")
    graph = make_graph(support=support)
    final = graph.invoke(
        {"question": QUESTION},
        context=Context(route="B", max_retries=50),
        config={"recursion_limit": 20},
    )
    assert final["retries"] < 50
    assert final["answer"]


@pytest.mark.parametrize("question", ["", "   ", "x" * 1_000_000, "hello\x1b[31m"])
def test_bad_question_fails_before_any_model_call(question):
    generator = rule_model()
    graph = make_graph(generator=generator)
    with pytest.raises(InvalidQuestionError):
        graph.invoke({"question": question}, context=Context())
    assert generator.calls == []


def stream_messages(graph, context, question=QUESTION):
    """Return the `messages`-mode chunks as (message, node) and the final state."""
    chunks, final = [], None
    for ns, mode, chunk in graph.stream(
        {"messages": [HumanMessage(question)]},
        context=context,
        stream_mode=["messages", "values"],
        subgraphs=True,
    ):
        if mode == "messages":
            message, meta = chunk
            chunks.append((message, meta["langgraph_node"]))
        elif not ns:
            final = chunk
    return chunks, final


def test_the_first_candidate_streams_live_in_messages_mode():
    rewriter = rule_model(default="JUDGE-SECRET, keywords")
    graph = build_graph(
        generator=rule_model([(ANSWERING, ANSWER)]),
        rewriter=rewriter,
        retriever=FakeRetriever(documents=list(DOCS), queries=[]),
        web_search=FakeWebSearch(list(WEB)),
        classifier=FakeClassifier("B"),
        evaluator=KeywordEvaluator(("Paris",), hit=0.0, miss=0.0),  # Ambiguous: web too
        support=FixedSupport("Paris"),
        usefulness=FixedUsefulness(),
    )
    chunks, final = stream_messages(graph, Context(ambiguous_query="rewrite"))
    assert rewriter.calls, "the rewriter ran (Ambiguous path), its tokens not streamed"
    assert len(chunks) > 5, "the answer arrives token by token"
    assert all(isinstance(m, AIMessageChunk) and node == "generate" for m, node in chunks)
    assert "".join(m.text for m, _ in chunks) == ANSWER
    assert len({m.id for m, _ in chunks}) == 1
    assert final["candidates"][0]["message_id"] == chunks[0][0].id
    assert final["messages"][-1].id == chunks[0][0].id  # the same message: not sent again
    assert final["events"][-1]["revised"] is False


def test_ircot_and_judges_never_reach_the_answer_stream():
    chunks, final = stream_messages(make_graph(), Context(route="C"))
    assert final["reasoning"] == ["So the answer is: Paris."]
    assert {node for _, node in chunks} == {"generate"}
    assert "".join(m.text for m, _ in chunks) == ANSWER


def test_a_revised_answer_is_marked_revised():
    generator = rule_model(
        [("Berlin is the capital", "Berlin is the capital of Germany."), (ANSWERING, ANSWER)]
    )
    graph = make_graph(keywords=("capital",), generator=generator)  # both passages kept
    chunks, final = stream_messages(graph, Context(route="B", candidates=2))
    live = "".join(m.text for m, _ in chunks if isinstance(m, AIMessageChunk))
    assert live == "Berlin is the capital of Germany."  # the first candidate, as written
    assert [c["text"] for c in final["candidates"]] == [ANSWER, live]  # reflect preferred #2
    assert final["answer"] == ANSWER and final["events"][-1]["revised"] is True
    whole = [m for m, _ in chunks if not isinstance(m, AIMessageChunk)]
    assert [(m.text, m.id == chunks[0][0].id) for m in whole] == [(ANSWER, False)]


def test_unanswerable_question_says_not_in_documents():
    graph = make_graph(keywords=("nothing",))  # every passage Incorrect, no web
    events, final = run_events(graph, Context(route="B", web_backend="none"))
    assert final["answer"] == NOT_IN_DOCUMENTS and final["abstained"] is True
    assert final["citations"] == [] and events[-1]["abstained"] is True
    assert final["messages"][-1].response_metadata["abstained"] is True
    answered = run_events(make_graph(), Context(route="B", web_backend="none"))[1]
    assert answered["answer"] == ANSWER and answered["abstained"] is False


def test_follow_up_is_condensed_with_a_checkpointer():
    graph = make_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    first = graph.invoke(
        {"question": "Tell me about France."}, context=Context(route="B"), config=config
    )
    assert first["standalone_question"] == "Tell me about France."
    second = graph.invoke(
        {"question": "What is its capital?"}, context=Context(route="B"), config=config
    )
    assert second["standalone_question"] == "What is France's capital?"  # the name put in
    assert [m.type for m in second["messages"]] == ["human", "ai", "human", "ai"]
    assert second["retrievals"] == 1  # per-turn counters start again
    assert types(second["events"])[0] == "question"
    assert second["events"][0]["condensed"] == "model"
    assert second["messages"][-1].text == ANSWER


def test_judge_junk_falls_back_and_is_recorded():
    from tests.fakes import JunkJudge

    junk = JunkJudge()
    graph = build_graph(
        generator=rule_model([(ANSWERING, ANSWER)]),
        rewriter=rule_model(default="France, capital"),
        retriever=FakeRetriever(documents=list(DOCS), queries=[]),
        web_search=FakeWebSearch([]),
        classifier=junk,
        evaluator=junk,
        support=junk,
        usefulness=junk,
    )
    events, final = run_events(graph, Context(judge_attempts=2))
    fallbacks = [e for e in events if e["type"] == "fallback"]
    assert {e["judge"] for e in fallbacks} == {"classifier", "evaluator", "support", "usefulness"}
    assert final["route"] == "B"
    assert final["crag_action"] == "Ambiguous"
    assert final["answer"] == ANSWER
    # junk is retried, not degraded; only the citations, chosen without the judge, are
    assert final["degraded"] == [OVERLAP_CITATIONS]
    assert final["notes"] == [f"Degraded: {OVERLAP_CITATIONS}."]


def test_runs_without_an_explicit_context_using_the_defaults():
    result = make_graph().invoke({"question": "What is the capital of France?"})
    assert result["answer"] == ANSWER


def test_follow_up_sent_only_as_messages_answers_the_new_question():
    graph = make_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "chat"}}
    graph.invoke({"messages": [HumanMessage("Tell me about France.")]}, config=config)
    second = graph.invoke({"messages": [HumanMessage("What is its capital?")]}, config=config)
    assert second["question"] == "What is its capital?"
    assert second["standalone_question"] == "What is France's capital?"


def test_route_c_keeps_each_event_once_after_the_ircot_subgraph():
    events, final = run_events(make_graph(), Context(route="C"))
    assert types(final["events"]) == types(events)
    assert types(final["events"]).count("question") == 1
