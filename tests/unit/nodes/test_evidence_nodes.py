import math

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphs.context import Context
from graphs.graph import recorded
from nodes.finalize import (
    NO_ANSWER,
    NOT_IN_DOCUMENTS,
    OVERLAP_CITATIONS,
    cite,
    finalize,
    should_abstain,
)
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


def test_retrieve_inside_ircot_respects_the_paragraph_cap():
    retriever = FakeRetriever(documents=DOCS, k=3, queries=[])
    runtime = make_runtime(Context(ircot_max_paragraphs=4))
    first = retrieve(
        {"standalone_question": "rivers"},
        runtime,
        make_deps(retriever=retriever),
        paragraph_cap=True,
    )
    retriever.documents = list(reversed(DOCS))
    events = []
    state = {"standalone_question": "rivers", "passages": first["passages"], "retrievals": 1}
    second = retrieve(
        state,
        make_runtime(Context(ircot_max_paragraphs=4), events),
        make_deps(retriever=retriever),
        paragraph_cap=True,
    )
    assert len(second["passages"]) == 1 and second["passages"][0]["step"] == 1
    assert [e["type"] for e in events] == ["retrieval", "cap_reached"]
    assert events[1]["reason"] == "2 passage(s) over IRCoT's paragraph cap were left out"
    uncapped = retrieve(
        state, make_runtime(Context(ircot_max_paragraphs=4)), make_deps(retriever=retriever)
    )
    assert len(uncapped["passages"]) == 3  # outside IRCoT the cap does not apply


def test_a_failed_index_degrades_with_the_reason_and_is_not_retried_twice():
    class Down(FakeRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            self.queries.append(query)
            raise ConnectionError("no server")

    retriever = Down(documents=[], queries=[])
    events = []
    out = recorded(retrieve)(
        {"standalone_question": "rivers"},
        make_runtime(events=events),
        make_deps(retriever=retriever),
    )
    reason = "the local index failed: ConnectionError: no server"
    assert out["passages"] == [] and out["degraded"] == [reason] and out["index_failed"]
    assert [(e["type"], e.get("degraded")) for e in events] == [
        ("fallback", reason),
        ("retrieval", None),
    ]


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
    assert clean_answer("<mark><address></address>The lighthouse was completed in 1887.") == (
        "The lighthouse was completed in 1887."
    )
    assert clean_answer("<|im_start|>Answer: <b>Paris</b><|im_end|>") == "Paris"
    assert clean_answer("So the answer is: Paris") == "Paris"
    assert clean_answer("Answer: Paris\nIt is the capital.") == "Paris\nIt is the capital."
    assert clean_answer("Answer: Paris\nIt is the capital.", short=True) == "Paris"


def test_answer_style_picks_the_answer_rule():
    generator = rule_model(default="Paris\nbecause it is the capital")
    state = {"standalone_question": "q", "route": "B", "strips": [kept("a", "p", 0.1)]}
    context = Context(candidates=1, answer_style="sentence")
    sentence = generate(state, make_runtime(context), make_deps(generator=generator))
    assert "one short sentence" in generator.calls[-1][1]
    assert sentence["candidates"][0]["text"] == "Paris\nbecause it is the capital"
    default = Context(candidates=1)  # the bare answer unless a sentence is asked for
    short = generate(state, make_runtime(default), make_deps(generator=generator))
    assert "as few words as possible" in generator.calls[-1][1]
    assert short["candidates"][0]["text"] == "Paris"


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
    closed_book = generate(
        {"standalone_question": "q"}, make_runtime(), make_deps(generator=generator)
    )
    assert closed_book["candidates"][0]["strip_hashes"] == []
    assert "<passage" not in generator.calls[-1][1]


def test_a_closed_book_answer_sees_the_conversation_but_not_the_current_turn_twice():
    generator = rule_model(default="You asked who designed the viaduct.")
    messages = [
        HumanMessage("Who designed the Sull Viaduct?"),
        AIMessage("Orla Fenwick"),
        HumanMessage("What did I just ask?"),
    ]
    state = {"standalone_question": "What did I just ask?", "route": "A", "messages": messages}
    generate(state, make_runtime(), make_deps(generator=generator))
    prompt = generator.calls[-1][1]
    assert "<conversation>" in prompt and "human: Who designed the Sull Viaduct?" in prompt
    assert "ai: Orla Fenwick" in prompt and prompt.count("What did I just ask?") == 1
    generate(
        {"standalone_question": "q", "route": "A"}, make_runtime(), make_deps(generator=generator)
    )
    assert "<conversation>" not in generator.calls[-1][1]  # a first turn: no empty block


def test_cite_prefers_strips_sharing_the_answer_words():
    strips = [kept("a", "p", 0.1), {**kept("b", "q", 0.9), "text": "Paris is big", "position": 2}]
    assert [c["position"] for c in cite("Paris.", strips, question="capital?")] == [2]
    assert len(cite("Lyon.", strips)) == 2


def test_cite_takes_the_strips_the_judge_found_supporting_over_shared_words():
    strips = [
        {**kept("a", "p", 0.9), "text": "Paris hosts the Louvre.", "position": 1},
        {**kept("b", "q", 0.5), "text": "The seat of government sits by the Seine.", "position": 2},
    ]
    judged = {"a": "none", "b": "partial"}
    assert [c["position"] for c in cite("Paris.", strips, judged=judged)] == [2]
    assert [c["position"] for c in cite("Paris.", strips)] == [1]  # overlap alone picks a
    nothing = {"a": "none", "b": "none"}
    assert [c["position"] for c in cite("Paris.", strips, judged=nothing)] == [1, 2]


def test_finalize_without_verdicts_per_strip_cites_by_overlap_and_says_so():
    strips = [{**kept("a", "p", 0.5), "text": "Paris is the capital."}, kept("b", "q", 0.5)]
    state = {
        "standalone_question": "capital of France?",
        "strips": strips,
        "candidates": [{"text": "Paris.", "strip_hashes": ["a", "b"], "support": "full"}],
    }
    out = recorded(finalize)(state, make_runtime(), make_deps())
    assert [c["strip_hash"] for c in out["citations"]] == ["a"]
    assert out["degraded"] == [OVERLAP_CITATIONS]
    assert out["notes"] == [f"Degraded: {OVERLAP_CITATIONS}."]
    assert [(e["type"], e["node"]) for e in out["events"]] == [
        ("fallback", "finalize"),
        ("answer", "finalize"),
    ]


def test_finalize_keeps_the_answer_bare_with_citations_and_notes_as_data():
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
        "retrievals": 1,
        "strips": strips,
        "candidates": [
            {
                "text": "Paris.",
                "strip_hashes": ["a", "w"],
                "support": "full",
                "strip_support": {"a": "full", "w": "partial"},
            }
        ],
        "stop_reason": "the answer is not supported after 1 retries (cap reached)",
        "degraded": ["web search failed: TimeoutError: hung"],
    }
    events = []
    out = finalize(state, make_runtime(events=events), make_deps())
    assert out["answer"] == "Paris." and out["abstained"] is False
    assert [(c["marker"], c["origin"], c["source"]) for c in out["citations"]] == [
        (1, "local", "s.md"),
        (2, "web", "s.md"),
    ]
    assert out["citations"][1]["url"] == "https://en.wikipedia.org/wiki/Paris"
    assert out["notes"] == [
        "Stopped early: the answer is not supported after 1 retries (cap reached).",
        "Degraded: web search failed: TimeoutError: hung.",
    ]
    message = out["messages"][0]
    assert isinstance(message, AIMessage) and message.text == "Paris."
    assert message.response_metadata == {
        "citations": out["citations"],
        "notes": out["notes"],
        "abstained": False,
    }
    assert [e["type"] for e in events] == ["answer"] and events[0]["answer"] == "Paris."
    empty = finalize({"standalone_question": "q"}, make_runtime(), make_deps())
    assert empty["answer"] == NO_ANSWER and empty["citations"] == []


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


def _guess_state(**extra):
    return {
        "standalone_question": "Who was the mayor of Brackwater in 1890?",
        "route": "B",
        "retrievals": 1,
        "strips": [],
        "candidates": [
            {"text": "John Smith was the mayor.", "strip_hashes": [], "support": "full"}
        ],
        "degraded": ["the local index failed: ConnectionError: no server"],
        **extra,
    }


def test_an_unanswerable_question_says_not_in_documents():
    events = []
    out = finalize(_guess_state(), make_runtime(events=events), make_deps())
    assert out["answer"] == NOT_IN_DOCUMENTS and out["abstained"] is True
    assert out["citations"] == [] and "John Smith" not in " ".join(out["notes"])
    assert out["notes"] == ["Degraded: the local index failed: ConnectionError: no server."]
    assert events[0]["abstained"] is True and events[0]["notes"] == out["notes"]
    assert out["messages"][0].response_metadata["abstained"] is True


def test_a_model_guess_is_added_only_when_asked_and_labelled():
    out = finalize(_guess_state(), make_runtime(Context(model_guess=True)), make_deps())
    assert out["answer"] == NOT_IN_DOCUMENTS
    assert out["notes"][-1] == (
        "Model-only guess (not from your documents): John Smith was the mayor."
    )


def test_without_any_candidate_there_is_no_guess_to_show():
    state = _guess_state(candidates=[], degraded=[])
    out = finalize(state, make_runtime(Context(model_guess=True)), make_deps())
    assert out["answer"] == NOT_IN_DOCUMENTS and out["notes"] == []


def test_the_reader_saying_not_found_abstains_even_with_evidence():
    strip = {**kept("a", "p", 0.9), "text": "Brackwater is a town."}
    state = _guess_state(
        strips=[strip],
        candidates=[{"text": "NOT FOUND", "strip_hashes": ["a"], "support": "full"}],
        degraded=[],
    )
    out = finalize(state, make_runtime(Context(model_guess=True)), make_deps())
    assert out["answer"] == NOT_IN_DOCUMENTS and out["citations"] == []
    assert out["notes"] == []  # "NOT FOUND" is no guess


def test_should_abstain():
    strip = kept("a", "p", 0.2)
    supported = {"text": "Paris.", "strip_hashes": ["a"], "support": "full"}
    unsupported = {**supported, "support": "none"}
    retrieved = {"retrievals": 1}
    assert not should_abstain(retrieved, supported, [strip], Context())
    assert should_abstain(retrieved, supported, [], Context())  # no evidence
    assert should_abstain(retrieved, None, [strip], Context())  # no candidate
    assert should_abstain(retrieved, {**supported, "text": "not found."}, [strip], Context())
    assert should_abstain(retrieved, supported, [strip], Context(abstain_below=0.5))
    assert should_abstain(retrieved, unsupported, [strip], Context())  # claims nothing found
    yes = {**unsupported, "text": "Yes."}  # claims no word the evidence could hold
    assert not should_abstain(retrieved, yes, [strip], Context())
    checked = Context(verify_below=0.3)
    assert should_abstain(retrieved, {**supported, "verified": 0.2}, [strip], checked)
    assert not should_abstain(retrieved, {**supported, "verified": 0.4}, [strip], checked)
    assert not should_abstain(retrieved, supported, [strip], checked)  # not checked: stands
    assert not should_abstain(retrieved, {**supported, "verified": 0.2}, [strip], Context())
    assert should_abstain({"web_searched": True}, supported, [], Context())
    assert not should_abstain({}, supported, [], Context())  # route A: no retrieval
    assert not should_abstain(retrieved, supported, [], Context(abstain=False))


def test_generate_asks_llama_cpp_for_logprobs():
    from tests.fakes import llamacpp_with

    model = llamacpp_with(lambda request: ("Paris.", [{"token": "Paris.", "logprob": -0.5}]))
    out = generate({"standalone_question": "q"}, make_runtime(), make_deps(generator=model))
    request = model.engine._server.requests[0]
    assert request["logprobs"] is True and out["candidates"][0]["logprob"] == -0.5
    generate(
        {"standalone_question": "q"},
        make_runtime(Context(use_logprobs=False)),
        make_deps(generator=model),
    )
    assert not model.engine._server.requests[1].get("logprobs")


def _yes_no(p_yes: float) -> list[dict]:
    top = [
        {"token": "Yes", "logprob": math.log(p_yes)},
        {"token": "No", "logprob": math.log(1 - p_yes)},
    ]
    return [{"token": "Yes" if p_yes >= 0.5 else "No", "logprob": 0.0, "top_logprobs": top}]


def test_the_reader_judges_its_answer_in_a_new_chat_that_starts_like_the_answer_prompt():
    from tests.fakes import llamacpp_with

    def reply(request):
        if "Proposed answer" in request["messages"][-1]["content"]:
            return "No", _yes_no(0.2)
        asked = request["messages"][-1]["content"]
        if "say nothing" in asked:
            return " ", None  # an empty answer: nothing to judge
        return ("NOT FOUND" if "unknown" in asked else "-k"), None

    model = llamacpp_with(reply)
    server = model.engine._server
    state = {"standalone_question": "How do I keep the input?", "strips": [kept("a", "p", 0.9)]}
    checked = make_runtime(Context(candidates=1, verify_below=0.5))
    out = generate(state, checked, make_deps(generator=model))
    assert out["candidates"][0]["text"] == "-k" and out["candidates"][0]["verified"] == 0.2
    answer, check = server.requests
    assert len(check["messages"]) == 2 and check["messages"][0] == answer["messages"][0]
    asked, judged = answer["messages"][1]["content"], check["messages"][1]["content"]
    passages = asked[: asked.index("</passage>") + len("</passage>")]
    assert judged.startswith(passages)  # the passages come from llama.cpp's prompt cache
    assert "How do I keep the input?" in judged and "Proposed answer: -k" in judged
    assert check["max_tokens"] == 1
    unchecked = generate(state, make_runtime(Context(candidates=1)), make_deps(generator=model))
    assert "verified" not in unchecked["candidates"][0] and len(server.requests) == 3
    declined = generate(
        {**state, "standalone_question": "unknown"}, checked, make_deps(generator=model)
    )
    assert "verified" not in declined["candidates"][0] and len(server.requests) == 4
    empty = generate(
        {**state, "standalone_question": "say nothing"}, checked, make_deps(generator=model)
    )
    assert "verified" not in empty["candidates"][0] and len(server.requests) == 5


def test_a_failing_answer_check_leaves_the_answer_standing():
    from tests.fakes import llamacpp_with

    def reply(request):
        if "Proposed answer" in request["messages"][-1]["content"]:
            raise RuntimeError("the model crashed")
        return "-k", None

    state = {"standalone_question": "q", "strips": [kept("a", "p", 0.9)]}
    runtime = make_runtime(Context(candidates=1, verify_below=0.5))
    out = generate(state, runtime, make_deps(generator=llamacpp_with(reply)))
    assert out["candidates"][0]["text"] == "-k" and "verified" not in out["candidates"][0]


def test_the_answer_model_is_built_with_the_context_repeat_penalty(monkeypatch):
    import graphs.deps as deps_module
    from graphs.deps import Deps

    built = []
    monkeypatch.setattr(
        deps_module, "_chat_model", lambda spec, **kw: built.append((spec, kw)) or "model"
    )
    context = Context(generator_model="smollm2", rewriter_model="qwen", repeat_penalty=1.2)
    assert Deps().generator_for(context) == Deps().rewriter_for(context) == "model"
    penalties = [(spec, kw.get("repeat_penalty")) for spec, kw in built]
    assert penalties == [("smollm2", 1.2), ("qwen", None)]  # only answers are penalised


@pytest.mark.parametrize(
    ("draft", "final", "revised"),
    [
        ("Paris is the capital.", "paris is the capital", False),  # the same words
        ("Paris  is the capital!", "Paris is the capital.", False),
        ("Lyon is the capital.", "Paris is the capital.", True),
    ],
)
def test_the_answer_is_revised_only_when_its_words_differ_from_the_draft(draft, final, revised):
    strips = [{**kept("a", "p", 0.5), "text": "Paris is the capital."}]
    state = {
        "standalone_question": "capital of France?",
        "strips": strips,
        "candidates": [
            {
                "text": final,
                "strip_hashes": ["a"],
                "support": "full",
                "strip_support": {"a": "full"},
            },
            {"text": draft, "strip_hashes": ["a"], "support": "none", "message_id": "draft-1"},
        ],
    }
    out = recorded(finalize)(state, make_runtime(), make_deps())
    assert out["events"][0]["revised"] is revised
    assert (out["messages"][0].id == "draft-1") is not revised  # kept: the client keeps the draft


def test_token_answers_rebuild_the_reader_answer_around_a_listed_option():
    strips = [
        {**kept("a", "p", 0.5), "text": "      --pid=PID   with -f, terminate after PID dies"}
    ]
    state = {"standalone_question": "How do I stop tail when a process exits?", "strips": strips}
    generator = rule_model(default="--pid=PID")
    off = generate(
        state, make_runtime(Context(answer_style="short")), make_deps(generator=generator)
    )
    assert [c["text"] for c in off["candidates"]] == ["--pid=PID"]
    context = Context(answer_style="short", token_answers=True)
    on = generate(state, make_runtime(context), make_deps(generator=generator))
    rebuilt, read = on["candidates"]
    assert (rebuilt["text"], rebuilt["strip_hashes"], rebuilt["message_id"]) == (
        "--pid",
        ["a"],
        None,
    )
    assert read["text"] == "--pid=PID"  # the streamed draft, so `finalize` marks the revision
    assert len(generator.calls) == 2  # one reader call per run, no choice asked
