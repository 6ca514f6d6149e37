from dataclasses import replace

import pytest

from bench.harness.data import Question
from bench.harness.evaluate import (
    RECORDS_FILE,
    round_robin,
    run_eval,
    run_order,
    run_signature,
    runner_settings,
)
from bench.harness.records import read_records
from tests.unit.bench.conftest import ANSWERS, FakeRunner, fake_ingest


def test_run_scores_every_question_and_strategy(config):
    runner = FakeRunner()
    records = run_eval(config, runner, ingest=fake_ingest)
    assert len(runner.calls) == 9  # 3 questions x 3 runnable strategies; the oracle runs nothing
    by_key = {(r.id, r.strategy): r for r in records}
    assert by_key[("id0", "no-retrieval")].acc == 0.0
    assert by_key[("id0", "single")].em == 1.0
    assert by_key[("id2", "single")].acc == 0.0
    assert by_key[("id0", "adaptive-oracle")].oracle_of == "single"
    assert by_key[("id2", "adaptive-oracle")].oracle_of == "ircot"
    assert by_key[("id1", "ircot")].route == "C"
    assert by_key[("id1", "ircot")].llm_calls == 1


def test_resume_after_a_kill_runs_only_what_is_missing(config):
    with pytest.raises(KeyboardInterrupt):
        run_eval(config, FakeRunner(stop_after=4), ingest=fake_ingest)
    assert len(read_records(config.out / RECORDS_FILE)) == 4
    # a kill in the middle of a write leaves half a line behind
    with (config.out / RECORDS_FILE).open("a") as out:
        out.write('{"dataset": "toy", "id": "id1", "stra')
    second = FakeRunner()
    records = run_eval(config, second, ingest=fake_ingest)
    assert len(second.calls) == 5
    assert ("q0", "no-retrieval") not in second.calls
    assert len([r for r in records if r.strategy != "adaptive-oracle"]) == 9
    assert len(read_records(config.out / RECORDS_FILE)) == 9
    third = FakeRunner()
    run_eval(config, third, ingest=fake_ingest)
    assert third.calls == []


def test_failed_questions_are_recorded_then_retried(config):
    records = run_eval(config, FakeRunner(fail_on={("q1", "ircot")}), ingest=fake_ingest)
    failed = [r for r in records if r.error]
    assert [(r.id, r.strategy) for r in failed] == [("id1", "ircot")]
    assert "graph broke" in (failed[0].error or "")
    retry = FakeRunner()
    records = run_eval(config, retry, ingest=fake_ingest)
    assert retry.calls == [("q1", "ircot")]
    assert not [r for r in records if r.error]


def test_a_runner_factory_is_not_called_without_work(config):
    run_eval(config, FakeRunner(), ingest=fake_ingest)

    def factory():
        raise AssertionError("nothing to run: the runner must not be built")

    assert len(run_eval(config, factory, ingest=fake_ingest)) == 12


def test_drop_gold_runs_each_share_on_its_own_index(config, tmp_path):
    config.strategies = ["single", "crag"]
    config.drop_gold = [0.0, 0.5]
    homes = []

    class Recording(FakeRunner):
        def run(self, question, strategy, *, home):
            homes.append(home)
            return super().run(question, strategy, home=home)

    records = run_eval(config, Recording(), ingest=fake_ingest)
    assert len(records) == 12
    assert len(set(homes)) == 2
    assert {r.drop_gold for r in records} == {0.0, 0.5}


def test_results_of_another_model_or_corpus_are_not_reused(config, tmp_path):
    run_eval(config, FakeRunner(), ingest=fake_ingest)
    config.model = "smollm2"
    other_model = FakeRunner()
    records = run_eval(config, other_model, ingest=fake_ingest)
    assert len(other_model.calls) == 9
    assert {r.model for r in records} == {"smollm2"}
    extra = tmp_path / "extra.jsonl"
    extra.write_text('{"title": "E", "text": "An extra passage."}\n')
    config.extra_corpus = [extra]
    other_corpus = FakeRunner()
    run_eval(config, other_corpus, ingest=fake_ingest)
    assert len(other_corpus.calls) == 9


def test_cold_start_changes_the_runner_settings_not_the_signature(config, tmp_path):
    home = tmp_path / "index"
    config.settings = {"top_k": 3}
    assert runner_settings(config) == {"prompt_cache": False, "top_k": 3}
    signature = run_signature(config, home)
    config.cold_start = False
    assert runner_settings(config) == {"prompt_cache": True, "top_k": 3}
    assert run_signature(config, home) == signature
    config.settings = {"top_k": 3, "prompt_cache": False}  # set by hand: still timing only
    assert run_signature(config, home) == signature
    config.settings = {"top_k": 4}
    assert run_signature(config, home) != signature


def test_warm_records_count_as_done_for_a_cold_run(config):
    config.cold_start = False
    run_eval(config, FakeRunner(), ingest=fake_ingest)
    config.cold_start = True
    again = FakeRunner()
    run_eval(config, again, ingest=fake_ingest)
    assert again.calls == []


def test_records_keep_the_runs_stages_and_cold_start(config):
    class Timed(FakeRunner):
        def run(self, question, strategy, *, home):
            outcome = super().run(question, strategy, home=home)
            return replace(outcome, stages={"retrieval": 0.2, "other": 0.3}, cold_start=True)

    records = run_eval(config, Timed(), ingest=fake_ingest)
    stored = read_records(config.out / RECORDS_FILE).values()
    assert all(r.cold_start and r.stages == {"retrieval": 0.2, "other": 0.3} for r in stored)
    assert all(r.cold_start for r in records)  # the oracle's copies too


def question(qid: str) -> Question:
    return Question(id=qid, dataset="toy", hop="single", question="q", answers=("a",))


def test_strategy_order_is_shuffled_per_question_and_stable():
    strategies = ["no-retrieval", "single", "ircot", "crag", "self-crag", "adaptive"]
    orders = [run_order(question(f"id{i}"), strategies) for i in range(10)]
    assert all(sorted(order) == sorted(strategies) for order in orders)
    assert len({tuple(order) for order in orders}) > 1  # questions differ
    assert orders == [run_order(question(f"id{i}"), strategies) for i in range(10)]  # stable


def test_each_question_runs_every_strategy_in_its_own_order(config):
    runnable = ["no-retrieval", "single", "ircot"]
    shuffled = FakeRunner()
    run_eval(config, shuffled, ingest=fake_ingest)
    for i, name in enumerate(["q0", "q1", "q2"]):
        ran = [s for q, s in shuffled.calls if q == name]
        assert ran == run_order(question(f"id{i}"), runnable)
    config.interleave = False
    config.out = config.out.with_name("fixed")
    fixed = FakeRunner()
    run_eval(config, fixed, ingest=fake_ingest)
    assert [s for _, s in fixed.calls] == runnable * 3


def test_questions_take_the_datasets_in_turn():
    def q(dataset: str, qid: str) -> Question:
        return Question(id=qid, dataset=dataset, hop="single", question="q", answers=("a",))

    questions = [q("nq", "n1"), q("nq", "n2"), q("nq", "n3"), q("hotpotqa", "h1"), q("x", "x1")]
    ordered = [item.id for item in round_robin(questions)]
    assert ordered == ["n1", "h1", "x1", "n2", "n3"]
    assert round_robin([]) == []


def test_a_retrained_judge_redoes_only_the_strategies_it_shapes(config, tmp_path, monkeypatch):
    from bench.harness import judge_artifacts

    artifacts = {}
    for judge in ("classifier", "evaluator", "action_evaluator", "support"):
        artifacts[judge] = tmp_path / judge
        artifacts[judge].mkdir()
        (artifacts[judge] / "manifest.json").write_text('{"weights_sha256": "one"}')
    monkeypatch.setattr(judge_artifacts, "JUDGE_DIRS", artifacts)
    config.strategies = ["single", "crag", "adaptive"]
    run_eval(config, FakeRunner(), ingest=fake_ingest)

    (artifacts["classifier"] / "manifest.json").write_text('{"weights_sha256": "two"}')
    judge_artifacts.artifact_fingerprint.cache_clear()
    again = FakeRunner()
    records = run_eval(config, again, ingest=fake_ingest)
    assert sorted({s for _, s in again.calls}) == ["adaptive"]
    assert len(again.calls) == 3
    assert len(records) == 9  # the old adaptive records are not reported beside the new ones

    (artifacts["evaluator"] / "decision.json").write_text('{"upper": 0.5}')
    judge_artifacts.artifact_fingerprint.cache_clear()
    third = FakeRunner()
    run_eval(config, third, ingest=fake_ingest)
    assert sorted({s for _, s in third.calls}) == ["crag"]


def test_judges_used_follow_the_strategy_and_settings():
    from bench.harness.judge_artifacts import judges_used

    assert judges_used("single", {}) == []
    assert judges_used("tutorial-crag", {}) == []
    assert judges_used("adaptive-oracle", {}) == []
    assert judges_used("adaptive", {}) == ["classifier"]
    assert judges_used("crag", {}) == ["evaluator", "action_evaluator"]
    assert judges_used("crag", {"action_evaluator": None}) == ["evaluator"]
    assert judges_used("crag", {"action_evaluator": "ev-folder"}) == ["evaluator"]
    assert judges_used("acrag", {}) == ["classifier", "evaluator", "action_evaluator"]
    assert judges_used("acrag", {"support": "trained"}) == [
        "classifier",
        "evaluator",
        "action_evaluator",
        "support",
    ]
    assert judges_used("acrag", {"classifier": "heuristic", "evaluator": "llm"}) == []


def test_an_abstention_scores_zero_even_when_its_sentence_holds_the_gold(config):
    class Abstaining(FakeRunner):
        def run(self, question, strategy, *, home):
            outcome = super().run(question, strategy, home=home)
            said = f"I could not find {ANSWERS[question]} stated in the documents."
            return replace(outcome, prediction=said, abstained=strategy == "single")

    by_key = {(r.id, r.strategy): r for r in run_eval(config, Abstaining(), ingest=fake_ingest)}
    assert (by_key[("id0", "single")].acc, by_key[("id0", "single")].f1) == (0.0, 0.0)
    assert by_key[("id0", "single")].abstained
    assert by_key[("id0", "ircot")].acc == 1.0  # the same sentence, not an abstention
