import math

from langchain_core.messages import AIMessage

from graphs.context import Context
from nodes.finalize import NO_ANSWER, NO_EVIDENCE, cite, finalize
from nodes.generate import clean_answer, evidence_groups, generate
from nodes.retrieve import retrieve
from nodes.web_search import paragraphs, web_search
from tests.fakes import (
    FakeRetriever,
    FakeWebSearch,
    local_doc,
    make_deps,
    make_runtime,
    rule_model,
    web_doc,
)

DOCS = [local_doc(f"Passage number {i} about rivers.", title=f"T{i}", position=i) for i in range(6)]


def test_retrieve_records_passages_and_counts():
    retriever = FakeRetriever(documents=DOCS, k=3, queries=[])
    events = []
    out = retrieve(
        {"standalone_question": "rivers", "search_query": "about rivers"},
        make_runtime(events=events),
        make_deps(retriever=retriever),
    )
    assert retriever.queries == ["about rivers"]
    assert len(out["passages"]) == 3 and out["retrievals"] == 1
    assert out["passages"][0]["score"] is None and out["passages"][0]["origin"] == "local"
    assert events[0]["type"] == "retrieval" and events[0]["new"] == 3


def test_retrieve_on_route_c_respects_the_paragraph_cap():
    retriever = FakeRetriever(documents=DOCS, k=3, queries=[])
    first = retrieve(
        {"standalone_question": "rivers", "route": "C"},
        make_runtime(Context(ircot_max_paragraphs=4)),
        make_deps(retriever=retriever),
    )
    retriever.documents = list(reversed(DOCS))
    events = []
    second = retrieve(
        {
            "standalone_question": "rivers",
            "route": "C",
            "passages": first["passages"],
            "retrievals": 1,
        },
        make_runtime(Context(ircot_max_paragraphs=4), events),
        make_deps(retriever=retriever),
    )
    assert len(second["passages"]) == 1
    assert [e["type"] for e in events] == ["retrieval", "cap_reached"]


def test_web_pages_split_into_paragraphs():
    page = web_doc(
        "First paragraph is long enough to keep, surely.\n\nshort\n\n"
        "Second paragraph is also long enough to keep.",
        title="W",
        url="https://w.org",
    )
    assert [d.page_content[:6] for d in paragraphs(page)] == ["First ", "Second"]
    events = []
    out = web_search(
        {"standalone_question": "q", "search_query": "k1, k2"},
        make_runtime(events=events),
        make_deps(web=FakeWebSearch([page])),
    )
    assert out["web_searched"] and {p["origin"] for p in out["passages"]} == {"web"}
    assert out["passages"][0]["url"] == "https://w.org"
    assert events[0]["backend"] == "fake" and events[0]["query"] == "k1, k2"


def test_web_search_disabled_says_so():
    events = []
    out = web_search(
        {"standalone_question": "q"}, make_runtime(Context(web_backend="none"), events), make_deps()
    )
    assert out["passages"] == [] and events[0]["degraded"] == "web search is disabled"


def kept(hash_, passage, score):
    return {
        "hash": hash_,
        "passage_hash": passage,
        "order": 0,
        "text": f"{hash_} text",
        "title": "",
        "source": "s.md",
        "position": 1,
        "url": None,
        "origin": "local",
        "score": score,
        "kept": True,
    }


def test_evidence_groups_all_then_best_passages():
    strips = [kept("a", "p", 0.1), kept("b", "q", 0.9), kept("c", "p", 0.3)]
    groups = evidence_groups(strips, count=3, per_passage=True)
    assert [[s["hash"] for s in g] for g in groups] == [["a", "b", "c"], ["b"], ["a", "c"]]
    assert len(evidence_groups(strips, count=3, per_passage=False)) == 1


def test_clean_answer():
    assert clean_answer("Answer: Paris.\n\nMore text") == "Paris."
    assert clean_answer("So the answer is: Paris") == "Paris"
    assert clean_answer("Answer: Paris\nIt is the capital.") == "Paris\nIt is the capital."
    assert clean_answer("Answer: Paris\nIt is the capital.", short=True) == "Paris"


def test_answer_style_picks_the_answer_rule():
    generator = rule_model(default="Paris\nbecause it is the capital")
    state = {"standalone_question": "q", "route": "B", "strips": [kept("a", "p", 0.1)]}
    sentence = generate(state, make_runtime(Context(candidates=1)), make_deps(generator=generator))
    assert "one short sentence" in generator.calls[-1][1]
    assert sentence["candidates"][0]["text"] == "Paris\nbecause it is the capital"
    context = Context(candidates=1, answer_style="short")
    short = generate(state, make_runtime(context), make_deps(generator=generator))
    assert "as few words as possible" in generator.calls[-1][1]
    assert short["candidates"][0]["text"] == "Paris"


class LogprobModel:
    pass


def test_generate_one_candidate_per_group_with_evidence():
    generator = rule_model(default="Paris.")
    state = {
        "standalone_question": "q",
        "route": "B",
        "strips": [kept("a", "p", 0.1), kept("b", "q", 0.9), {**kept("z", "r", -1), "kept": False}],
    }
    out = generate(state, make_runtime(Context(candidates=2)), make_deps(generator=generator))
    assert [c["strip_hashes"] for c in out["candidates"]] == [["a", "b"], ["b"]]
    assert '<passage id="1"' in generator.calls[0][1] and "z text" not in generator.calls[0][1]
    route_a = generate({**state, "route": "A"}, make_runtime(), make_deps(generator=generator))
    assert route_a["candidates"][0]["strip_hashes"] == []
    assert "<passage" not in generator.calls[-1][1]


def test_cite_prefers_strips_sharing_the_answer_words():
    strips = [kept("a", "p", 0.1), {**kept("b", "q", 0.9), "text": "Paris is big", "position": 2}]
    assert [c["position"] for c in cite("Paris.", strips, question="capital?")] == [2]
    assert len(cite("Lyon.", strips)) == 2


def test_finalize_composes_answer_citations_and_stop_reason():
    strips = [
        {**kept("a", "p", 0.5), "text": "Paris is the capital."},
        {
            **kept("w", "x", 0.5),
            "text": "Paris, city of light.",
            "origin": "web",
            "url": "https://en.wikipedia.org/wiki/Paris",
        },
    ]
    state = {
        "standalone_question": "capital of France?",
        "strips": strips,
        "candidates": [{"text": "Paris.", "strip_hashes": ["a", "w"]}],
        "stop_reason": "IRCoT reached its cap of 5 steps without an answer",
    }
    events = []
    out = finalize(state, make_runtime(events=events), make_deps())
    assert out["answer"].splitlines()[0] == "Paris. [1][2]"
    assert "[1] (local)" in out["answer"] and "s.md, part 1" in out["answer"]
    assert "[2] (web)" in out["answer"] and "https://en.wikipedia.org/wiki/Paris" in out["answer"]
    assert out["answer"].endswith(
        "Stopped early: IRCoT reached its cap of 5 steps without an answer."
    )
    assert isinstance(out["messages"][0], AIMessage) and events[0]["type"] == "answer"
    empty = finalize({"standalone_question": "q"}, make_runtime(), make_deps())
    assert empty["answer"] == NO_ANSWER


def test_mean_logprob_feeds_the_candidate():
    from nodes._common import mean_logprob

    message = AIMessage(
        "x",
        response_metadata={
            "logprobs": {
                "content": [
                    {"token": "a", "logprob": math.log(0.5)},
                    {"token": "b", "logprob": math.log(0.5)},
                ]
            }
        },
    )
    assert math.isclose(mean_logprob(message), math.log(0.5))
    assert mean_logprob(AIMessage("x")) is None


def test_finalize_says_when_no_passage_backs_the_answer():
    state = {
        "standalone_question": "q",
        "route": "B",
        "strips": [],
        "candidates": [{"text": "A guess.", "strip_hashes": []}],
    }
    out = finalize(state, make_runtime(), make_deps())
    assert out["answer"] == "A guess.\n\nNote: " + NO_EVIDENCE + "."
    closed_book = finalize({**state, "route": "A"}, make_runtime(), make_deps())
    assert closed_book["answer"] == "A guess."


def test_generate_asks_llama_cpp_for_a_repeat_penalty():
    from tests.fakes import llamacpp_with

    model = llamacpp_with(lambda request: ("Paris.", None))
    generate(
        {"standalone_question": "q", "route": "A"},
        make_runtime(Context(repeat_penalty=1.2)),
        make_deps(generator=model),
    )
    request = model.engine._server.requests[0]
    assert request["repeat_penalty"] == 1.2 and request["logprobs"] is True
