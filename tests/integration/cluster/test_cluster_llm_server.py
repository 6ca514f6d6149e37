"""A cluster worker runs the real graph with its model behind the shared model server.

PostgreSQL, Redis, one stock LangGraph worker serving the real graph of `langgraph.json`, and
one `app.server.llm_server` (the small SmolLM2 file, so the test stays short) started by the
launcher the way `make serve-cluster LLM_SERVER=1` starts it. The worker's only model settings
are the environment the launcher gives it (`ACRAG_LLM_BASE_URL`, `ACRAG_MODEL`, the key). A
question on route A (straight to the reader) must be answered with the model server doing
the work: its token counters rise, and the worker process never maps a GGUF file itself.
Needs `.venv-cluster` (`make cluster-setup`) and `make system-deps`.
"""

from pathlib import Path

import pytest

from app.server.cluster import Cluster, free_port
from app.server.cluster_load import CLUSTER_PYTHON, connect
from app.server.cluster_services import ModelServer

ALIAS = "acrag-test-reader"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    if not CLUSTER_PYTHON.exists():
        pytest.fail(f"{CLUSTER_PYTHON} is missing: run `make cluster-setup`")
    tmp_path = tmp_path_factory.mktemp("cluster-llm")
    model = ModelServer(
        tmp_path / "model",
        free_port(),
        model="smollm2",
        alias=ALIAS,
        parallel=2,
        python=str(CLUSTER_PYTHON),
    )
    running = Cluster(
        tmp_path / "cluster",
        1,
        python=str(CLUSTER_PYTHON),
        model_server=model,
        extra_env={"ACRAG_HOME": str(tmp_path / "home")},
    )
    try:
        with running:
            yield running
    finally:
        running.postgres.remove()


def _mapped_gguf(pid: int) -> list[str]:
    maps = Path(f"/proc/{pid}/maps").read_text()
    return sorted({line.split()[-1] for line in maps.splitlines() if line.endswith(".gguf")})


def test_a_worker_answers_through_the_shared_model_server(cluster: Cluster):
    model = cluster.model_server
    assert model is not None
    before = model.metrics()
    client = connect(cluster.urls[0])
    thread_id = str(client.threads.create()["thread_id"])
    question = "Name one colour of the sky."
    body = {"question": question, "messages": [{"type": "human", "content": question}]}
    done = client.runs.wait(
        thread_id, "acrag", input=body, context={"route": "A", "reflect": False}
    )
    messages = done["messages"]  # type: ignore[index, call-overload]
    answer = [m for m in messages if m["type"] == "ai"][-1]
    assert answer["content"].strip()
    after = model.metrics()
    assert after["llamacpp:prompt_tokens_total"] > before["llamacpp:prompt_tokens_total"]
    assert after["llamacpp:tokens_predicted_total"] > before["llamacpp:tokens_predicted_total"]
    assert _mapped_gguf(cluster.processes[0].pid) == []  # no reader of its own
    assert model.process is not None and any(
        path.endswith(".gguf") for path in _mapped_gguf(model.process.pid)
    )


def test_the_model_server_refuses_requests_without_its_key(cluster: Cluster):
    import httpx

    model = cluster.model_server
    assert model is not None
    request = {"model": ALIAS, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
    refused = httpx.post(f"{model.url}/chat/completions", json=request, timeout=30)
    assert refused.status_code == 401
    models = httpx.get(
        f"{model.url}/models", headers={"Authorization": f"Bearer {model.api_key}"}, timeout=30
    )
    assert [m["id"] for m in models.json()["data"]] == [ALIAS]
