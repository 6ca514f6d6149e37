"""The cluster launcher's pure part: the environment that makes a worker serve langgraph.json."""

import json

from app.server.cluster import RUN_TIMEOUT_S, worker_environment

CONFIG = {
    "graphs": {"acrag": "graphs.graph:graph"},
    "http": {"app": "app.server.asgi:app"},
    "env": {"ACRAG_ALLOWED_HOSTS": "chat.example"},
}


def _environment(config=CONFIG) -> dict[str, str]:
    return worker_environment(
        config, database="postgresql://db", redis="redis://r", jobs=3, heartbeat=5
    )


def test_workers_serve_langgraph_json_on_the_pg_runtime():
    env = _environment()
    assert env["LANGGRAPH_RUNTIME_EDITION"] == "pg"
    assert (env["DATABASE_URI"], env["REDIS_URI"]) == ("postgresql://db", "redis://r")
    assert json.loads(env["LANGSERVE_GRAPHS"]) == CONFIG["graphs"]
    assert json.loads(env["LANGGRAPH_HTTP"]) == CONFIG["http"]
    assert env["N_JOBS_PER_WORKER"] == "3" and env["LG_BG_JOB_HEARTBEAT"] == "5"
    assert env["LG_RUNTIME_PG_AUTO_MIGRATE"] == "false"
    assert env["ACRAG_ALLOWED_HOSTS"] == "chat.example"
    assert "LANGGRAPH_AUTH" not in env


def test_run_time_limit_is_acrag_serves_unless_langgraph_json_says_otherwise():
    assert _environment()["BG_JOB_TIMEOUT_SECS"] == str(RUN_TIMEOUT_S)
    longer = {**CONFIG, "env": {"BG_JOB_TIMEOUT_SECS": "900"}}
    assert _environment(longer)["BG_JOB_TIMEOUT_SECS"] == "900"
    auth = {**CONFIG, "auth": {"path": "auth.py:auth"}}
    assert json.loads(_environment(auth)["LANGGRAPH_AUTH"]) == {"path": "auth.py:auth"}


def test_a_shared_model_server_reaches_every_worker_and_user_settings_still_win(
    tmp_path, monkeypatch
):
    from app.server.cluster import Cluster
    from app.server.cluster_services import ModelServer

    monkeypatch.delenv("ACRAG_MODEL", raising=False)
    monkeypatch.delenv("ACRAG_LLM_BASE_URL", raising=False)
    server = ModelServer(tmp_path / "model", 8399, alias="reader", api_key="k")
    cluster = Cluster(tmp_path, 1, ports=[8398], model_server=server)
    cluster.config = tmp_path / "langgraph.json"
    cluster.config.write_text(json.dumps(CONFIG))
    env = cluster._environment()
    assert env["ACRAG_LLM_BASE_URL"] == "http://127.0.0.1:8399/v1"
    assert (env["ACRAG_MODEL"], env["OPENAI_API_KEY"]) == ("openai:reader", "k")
    cluster.extra_env["ACRAG_MODEL"] = "smollm2"
    assert cluster._environment()["ACRAG_MODEL"] == "smollm2"
    alone = Cluster(tmp_path, 1, ports=[8397], config=cluster.config)._environment()
    assert "ACRAG_MODEL" not in alone and "ACRAG_LLM_BASE_URL" not in alone


def test_each_model_server_gets_its_own_random_key(tmp_path):
    from app.server.cluster_services import ModelServer

    first, second = ModelServer(tmp_path, 1), ModelServer(tmp_path, 2)
    assert first.api_key != second.api_key and len(first.api_key) >= 24


def test_the_launcher_makes_a_token_unless_one_is_set_or_refused():
    from app.server.cluster import made_token

    first, second = made_token({}, no_token=False), made_token({}, no_token=False)
    assert first and second and first != second and len(first) >= 24
    assert made_token({"ACRAG_SERVE_TOKEN": "mine"}, no_token=False) is None
    assert made_token({}, no_token=True) is None
