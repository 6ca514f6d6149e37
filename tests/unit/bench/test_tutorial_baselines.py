"""The tutorial baselines' control flow, run with fake models through `GraphRunner`."""

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from app.cmd_eval import DEFAULT_STRATEGIES
from bench.baselines import BUILDERS, build_baselines, build_tutorial_crag, build_tutorial_self_rag
from bench.baselines._tutorial import parse_binary_score
from bench.harness.runner import GraphRunner
from bench.harness.strategies import BASELINES, DESCRIPTIONS, parse_strategies
from graphs import Context
from prompts.generate import CLOSED_BOOK_SYSTEM
from tests.fakes import FakeRetriever, FakeWebSearch, RuleChatModel, local_doc, make_deps, web_doc

QUESTION = "What is the capital of France?"
REWRITTEN = "Which city is the capital of France?"
DOCS = [
    local_doc("Paris is the capital of France.", title="Paris", position=1),
    local_doc("Berlin is the capital of Germany.", title="Berlin", position=2),
]
WEB = [web_doc("Paris is France's capital city.", title="Paris (web)", url="https://x.org/paris")]

RELEVANCE = "relevance of a retrieved document"  # both retrieval graders' system prompts
GROUNDED = "grounded in / supported by"  # the hallucination grader
RESOLVES = "addresses / resolves"  # the answer grader
ANSWERING = "Answer:"  # acrag's answer prompt, and no grader's


class Script(RuleChatModel):
    """Reply by the first rule whose needles are all in the prompt; a list of replies is said
    in turn (the last one repeats). Reports token usage, and keeps each call's options."""

    script: list[tuple[tuple[str, ...], list[str]]] = []
    options: list[dict[str, Any]] = []

    def _reply(self, messages: list[BaseMessage]) -> str:
        prompt = "\n".join(str(m.content) for m in messages)
        for needles, replies in self.script:
            if all(n in prompt for n in needles):
                return replies.pop(0) if len(replies) > 1 else replies[0]
        return self.default

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        text = self._reply(messages)
        prompt = "\n".join(str(m.content) for m in messages)
        self.calls.append((str(kwargs.get("max_tokens")), prompt))
        self.options.append(kwargs)
        usage = {
            "input_tokens": len(prompt.split()),
            "output_tokens": len(text.split()),
            "total_tokens": len(prompt.split()) + len(text.split()),
        }
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))]
        )

    def prompts(self, needle: str) -> list[str]:
        return [prompt for _, prompt in self.calls if needle in prompt]


def script(*rules: tuple[tuple[str, ...], list[str]]) -> Script:
    return Script(script=[(n, list(r)) for n, r in rules], default="Paris", calls=[], options=[])


def runner(reader: Script, *, rewriter: Script | None = None, **settings: Any):
    retriever = FakeRetriever(documents=list(DOCS), queries=[])
    web = FakeWebSearch(list(WEB))
    deps = make_deps(
        generator=reader,
        rewriter=rewriter or script(((), [REWRITTEN])),
        retriever=retriever,
        web=web,
    )
    return (
        GraphRunner(
            model="local", settings=settings, graph=object(), baselines=build_baselines(deps)
        ),
        retriever,
        web,
    )


def prompt_tokens(*models: Script) -> int:
    return sum(len(prompt.split()) for m in models for _, prompt in m.calls)


def test_binary_scores_are_read_from_the_first_yes_or_no():
    assert parse_binary_score("yes") == "yes"
    assert parse_binary_score(" Yes.") == "yes"
    assert parse_binary_score('{"binary_score": "no"}') == "no"
    assert parse_binary_score("NO, it is about Germany; yes it names a capital") == "no"
    assert parse_binary_score("The document is relevant.") is None  # junk: the tutorial's "no"
    assert parse_binary_score("") is None
    assert parse_binary_score("nobody knows, yesterday") is None  # whole words only


def test_the_baselines_are_registered_but_not_run_by_default():
    assert set(BUILDERS) == set(BASELINES) <= set(DESCRIPTIONS)
    assert parse_strategies("single,tutorial-crag,tutorial-self-rag")[1:] == list(BASELINES)
    assert not set(BASELINES) & set(DEFAULT_STRATEGIES.split(","))


def test_topologies_follow_the_tutorials():
    crag = build_tutorial_crag().get_graph().draw_mermaid()
    for edge in (
        "__start__ --> retrieve;",
        "retrieve --> grade_documents;",
        "grade_documents -.-> transform_query;",
        "grade_documents -.-> generate;",
        "transform_query --> web_search_node;",
        "web_search_node --> generate;",
        "generate --> __end__;",
    ):
        assert edge in crag
    self_rag = build_tutorial_self_rag().get_graph().draw_mermaid()
    for edge in (
        "grade_documents -.-> transform_query;",
        "transform_query --> retrieve;",
        "generate --> grade_generation;",
        "grade_generation -.-> generate;",
        "grade_generation -.-> transform_query;",
        "grade_generation -.-> __end__;",
    ):
        assert edge in self_rag


# tutorial-crag


def test_tutorial_crag_answers_from_relevant_documents_without_the_web(tmp_path):
    reader = script(((RELEVANCE,), ["yes"]), ((ANSWERING,), ["Paris"]))
    run, _, web = runner(reader)
    outcome = run.run(QUESTION, "tutorial-crag", home=tmp_path)
    assert outcome.prediction == "Paris" and outcome.abstained is False
    assert outcome.llm_calls == 3  # two grades, one answer
    assert (outcome.retrieval_calls, outcome.web_searches) == (1, 0)
    assert web.queries == []
    (answer,) = reader.prompts(ANSWERING)
    assert 'title="Berlin"' in answer and QUESTION in answer
    assert outcome.prompt_tokens == prompt_tokens(reader) > 0
    assert outcome.generated_tokens > 0 and outcome.route is None


def test_tutorial_crag_drops_a_no_and_adds_the_web_for_the_rewritten_question(tmp_path):
    reader = script(
        ((RELEVANCE, "Germany"), ["No, it is about Germany."]),
        ((RELEVANCE,), ["yes"]),
        ((ANSWERING,), ["Paris"]),
    )
    rewriter = script(((), [REWRITTEN]))
    run, retriever, web = runner(reader, rewriter=rewriter)
    outcome = run.run(QUESTION, "tutorial-crag", home=tmp_path)
    assert outcome.llm_calls == 4  # two grades, the rewrite, the answer
    assert (outcome.retrieval_calls, outcome.web_searches) == (2, 1)
    assert retriever.queries == [QUESTION] and web.queries == [REWRITTEN]
    (answer,) = reader.prompts(ANSWERING)
    assert 'title="Paris"' in answer and 'title="Paris (web)"' in answer
    assert 'title="Berlin"' not in answer
    assert REWRITTEN in answer  # the tutorial answers the rewritten question
    graded = f"Retrieved document: \n\n {DOCS[1].page_content} \n\n User question: {QUESTION}"
    assert any(graded in p for p in reader.prompts(RELEVANCE))  # bare text, as the tutorial
    assert outcome.prompt_tokens == prompt_tokens(reader, rewriter)


def test_tutorial_crag_reads_a_junk_grade_as_no(tmp_path):
    reader = script(
        ((RELEVANCE, "Germany"), ["Perhaps."]),
        ((RELEVANCE,), ["YES"]),
        ((ANSWERING,), ["Paris"]),
    )
    graph = build_tutorial_crag(
        make_deps(
            generator=reader,
            rewriter=script(((), [REWRITTEN])),
            retriever=FakeRetriever(documents=list(DOCS), queries=[]),
            web=FakeWebSearch(list(WEB)),
        )
    )
    final = graph.invoke({"question": QUESTION}, context=Context(answer_style="short"))
    assert final["junk_grades"] == 1 and final["web_search"] is True
    assert [d["title"] for d in final["documents"]] == ["Paris", "Paris (web)"]
    assert final["question"] == REWRITTEN and final["answer"] == "Paris"


# tutorial-self-rag


def test_tutorial_self_rag_checks_the_answer_twice_and_stops(tmp_path):
    reader = script(
        ((RELEVANCE,), ["yes"]),
        ((GROUNDED,), ["yes"]),
        ((RESOLVES,), ["yes"]),
        ((ANSWERING,), ["Paris"]),
    )
    run, retriever, web = runner(reader)
    outcome = run.run(QUESTION, "tutorial-self-rag", home=tmp_path)
    assert outcome.prediction == "Paris" and outcome.abstained is False
    assert outcome.llm_calls == 5  # two grades, the answer, hallucination and answer graders
    assert (outcome.retrieval_calls, outcome.web_searches) == (1, 0)
    assert retriever.queries == [QUESTION] and web.queries == []
    assert outcome.prompt_tokens == prompt_tokens(reader)


def test_tutorial_self_rag_regenerates_an_ungrounded_answer(tmp_path):
    reader = script(
        ((RELEVANCE,), ["yes"]),
        ((GROUNDED, "LLM generation: Berlin"), ["no"]),
        ((GROUNDED,), ["yes"]),
        ((RESOLVES,), ["yes"]),
        ((ANSWERING,), ["Berlin", "Paris"]),
    )
    run, retriever, _ = runner(reader, max_retries=2)
    outcome = run.run(QUESTION, "tutorial-self-rag", home=tmp_path)
    assert outcome.prediction == "Paris"
    assert outcome.llm_calls == 7  # 2 grades, answer, "no", answer again, "yes", "yes"
    assert retriever.queries == [QUESTION]  # a regeneration does not retrieve
    facts = f"Set of facts: \n\n {DOCS[0].page_content}\n\n{DOCS[1].page_content} \n\n"
    assert reader.prompts(facts + " LLM generation: Berlin")
    answers = [o for o, (_, p) in zip(reader.options, reader.calls, strict=True) if ANSWERING in p]
    assert "temperature" not in answers[0] and answers[1]["temperature"] == 0.7  # sampled


def test_tutorial_self_rag_rewrites_when_the_answer_does_not_resolve(tmp_path):
    reader = script(
        ((RELEVANCE,), ["yes"]),
        ((GROUNDED,), ["yes"]),
        ((RESOLVES, "LLM generation: the capital"), ["no"]),
        ((RESOLVES,), ["yes"]),
        ((ANSWERING,), ["the capital", "Paris"]),
    )
    rewriter = script(((), [REWRITTEN]))
    run, retriever, web = runner(reader, rewriter=rewriter, max_retries=2)
    outcome = run.run(QUESTION, "tutorial-self-rag", home=tmp_path)
    assert outcome.prediction == "Paris"
    assert retriever.queries == [QUESTION, REWRITTEN] and web.queries == []
    assert (outcome.retrieval_calls, outcome.web_searches) == (2, 0)
    assert outcome.llm_calls == 11  # 5 per pass (2 grades, answer, 2 graders) + the rewrite
    assert REWRITTEN in reader.prompts(ANSWERING)[1]


def test_tutorial_self_rag_stops_at_the_cap_with_the_last_answer(tmp_path):
    reader = script(
        ((RELEVANCE,), ["yes"]),
        ((GROUNDED,), ["Not sure."]),  # junk: the tutorial's "not supported"
        ((ANSWERING,), ["Lyon", "Nice", "Lille"]),
    )
    run, _, _ = runner(reader, max_retries=2)
    outcome = run.run(QUESTION, "tutorial-self-rag", home=tmp_path)
    assert outcome.prediction == "Lille"  # the third answer, ungraded: no grade could change it
    assert outcome.llm_calls == 7  # 2 grades, 3 answers, 2 hallucination grades
    assert reader.prompts(RESOLVES) == []


def test_tutorial_self_rag_rewrites_when_nothing_is_relevant_then_answers_without(tmp_path):
    reader = script(((RELEVANCE,), ["no"]), ((ANSWERING,), ["Paris"]))
    graph = build_tutorial_self_rag(
        make_deps(
            generator=reader,
            rewriter=script(((), [REWRITTEN])),
            retriever=FakeRetriever(documents=list(DOCS), queries=[]),
        )
    )
    events: list[dict[str, Any]] = []
    for mode, chunk in graph.stream(
        {"question": QUESTION}, context=Context(max_retries=1), stream_mode=["custom", "values"]
    ):
        if mode == "custom":
            events.append(chunk)
        else:
            final = chunk
    assert [e["type"] for e in events] == [
        "retrieval",
        "retry",
        "rewrite",
        "retrieval",
        "cap_reached",
        "cap_reached",
    ]
    assert final["documents"] == [] and final["retries"] == 1 and final["answer"] == "Paris"
    (answer,) = reader.prompts(ANSWERING)
    assert CLOSED_BOOK_SYSTEM in answer  # no document survived: the reader answers alone
    assert len(reader.calls) == 5  # 2 grades, 2 grades after the rewrite, the answer


def test_tutorial_self_rag_never_hits_the_recursion_limit():
    reader = script(
        ((RELEVANCE,), ["yes"]),
        ((GROUNDED,), ["yes"]),
        ((RESOLVES,), ["no"]),
        ((ANSWERING,), ["?"]),
    )
    graph = build_tutorial_self_rag(
        make_deps(generator=reader, retriever=FakeRetriever(documents=list(DOCS), queries=[]))
    )
    final = graph.invoke(
        {"question": QUESTION}, {"recursion_limit": 20}, context=Context(max_retries=50)
    )
    assert 0 < final["retries"] < 50 and final["decision"] == "end"
