"""The cluster load client's fail-over and its per-thread check, with fake SDK clients."""

import httpx
import pytest

from app.server.cluster_load import on_any, thread_problems


class _Gone:
    def __init__(self, name: str, alive: bool):
        self.name, self.alive = name, alive

    def call(self) -> str:
        if not self.alive:
            raise httpx.ConnectError("refused")
        return self.name


def test_on_any_moves_to_the_next_worker_and_raises_when_none_is_left():
    clients = [_Gone("w0", False), _Gone("w1", True)]
    assert on_any(clients, 0, lambda c: c.call()) == "w1"
    assert on_any(clients, 1, lambda c: c.call()) == "w1"
    with pytest.raises(httpx.ConnectError):
        on_any([_Gone("w0", False)], 0, lambda c: c.call())


class _Threads:
    def __init__(self, messages):
        self.messages = messages

    def get_state(self, thread_id):
        return {"values": {"messages": self.messages}}


class _Client:
    def __init__(self, messages):
        self.threads = _Threads(messages)


def test_thread_problems_catch_repeated_and_missing_turns():
    human = [{"type": "human", "content": q} for q in ("q1", "q2")]
    ai = {"type": "ai", "content": "a"}
    assert thread_problems(_Client([human[0], ai, human[1], ai]), "t", ["q1", "q2"]) == []
    repeated = thread_problems(_Client([human[0], human[0], ai, human[1], ai]), "t", ["q1", "q2"])
    assert len(repeated) == 1 and "human messages" in repeated[0]
    missing = thread_problems(_Client([human[0], ai, human[1]]), "t", ["q1", "q2"])
    assert missing == ["t: 1 answers to 2 questions"]
