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
