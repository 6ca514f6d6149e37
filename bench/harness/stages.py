"""Where a run's time goes: wall time per graph node and the LLM's own time, as stages.

`StageTimer` is a callback handler. LangGraph reports each node run as a chain run whose name
equals its `metadata["langgraph_node"]`; a subgraph node (IRCoT's loop) contains the runs of
its inner nodes, so each node run keeps only its *own* time: its wall time minus that of the
node runs and LLM calls inside it. llama.cpp reports how long each call spent evaluating the
prompt and decoding (`response_metadata["timings"]`); those go to the `prompt` and `decode`
stages whichever node made the call. A response replayed from the LLM cache carries no
timings, so it adds no model time. What no node accounts for (graph overhead, unmapped
nodes such as `generate` outside its LLM time) is `other`, so the stages sum to the run's
seconds.
"""

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

__all__ = ["NODE_STAGES", "STAGES", "StageTimer", "llm_seconds"]

STAGES = ("routing", "retrieval", "evaluator", "strips", "critique", "prompt", "decode", "other")
"""Every stage, in the order reports show them."""

NODE_STAGES: Mapping[str, str] = {
    "condense_question": "routing",
    "classify_complexity": "routing",
    "retrieve": "retrieval",
    "web_search": "retrieval",
    "web_search_node": "retrieval",  # the tutorial CRAG's name
    "grade_documents": "evaluator",  # acrag's evaluator and the tutorials' passage grader
    "refine_strips": "strips",
    "reflect": "critique",
    "grade_generation": "critique",  # the tutorial Self-RAG's hallucination and answer grades
}
"""The stage of each graph node's own time (its LLM time aside); other nodes count as `other`."""


def llm_seconds(response: LLMResult) -> tuple[float, float]:
    """Return the prompt-evaluation and decoding seconds llama.cpp reported for a response."""
    prompt = decode = 0.0
    for generations in response.generations:
        for generation in generations:
            message = getattr(generation, "message", None)
            timings = (getattr(message, "response_metadata", None) or {}).get("timings") or {}
            prompt += float(timings.get("prompt_ms") or 0.0) / 1000
            decode += float(timings.get("predicted_ms") or 0.0) / 1000
    return prompt, decode


@dataclass
class _NodeRun:
    name: str
    parent: UUID | None
    """The node run this one runs inside (a subgraph's node), if any."""
    started: float
    inner: float = 0.0
    """Seconds spent in nested node runs and in the LLM, not this node's own."""


class StageTimer(BaseCallbackHandler):
    """Add up a run's seconds per stage (see `STAGES`); read them with `stages(seconds)`."""

    def __init__(self, *, clock: Callable[[], float] = time.perf_counter) -> None:
        """Start with nothing timed; `clock` returns seconds (tests may pass their own)."""
        self.clock = clock
        self.totals: dict[str, float] = defaultdict(float)
        self._parents: dict[UUID, UUID | None] = {}
        self._open: dict[UUID, _NodeRun] = {}
        self._lock = threading.Lock()  # a judge may batch its calls over threads

    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a node run (a chain run named as its `langgraph_node`)."""
        name = kwargs.get("name")
        with self._lock:
            self._parents[run_id] = parent_run_id
            if name is not None and name == (metadata or {}).get("langgraph_node"):
                self._open[run_id] = _NodeRun(name, self._node_of(parent_run_id), self.clock())

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Close a node run."""
        self._close(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Close a failed node run (a retried node is timed on every attempt)."""
        self._close(run_id)

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember where a chat-model call was made."""
        self._remember(run_id, parent_run_id)

    def on_llm_start(
        self,
        serialized: Any,
        prompts: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember where a completion-model call was made."""
        self._remember(run_id, parent_run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Add the call's model time, and take it out of the calling node's own time."""
        prompt, decode = llm_seconds(response)
        with self._lock:
            self.totals["prompt"] += prompt
            self.totals["decode"] += decode
            node = self._node_of(self._parents.get(run_id))
            if node is not None:
                self._open[node].inner += prompt + decode

    def stages(self, seconds: float) -> dict[str, float]:
        """Return seconds per stage for a run that took `seconds`; `other` is the rest."""
        timed = {stage: self.totals.get(stage, 0.0) for stage in STAGES if stage != "other"}
        timed["other"] = max(0.0, seconds - sum(timed.values()))
        return {stage: round(value, 4) for stage, value in timed.items()}

    def _remember(self, run_id: UUID, parent_run_id: UUID | None) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id

    def _node_of(self, run_id: UUID | None) -> UUID | None:
        """Return the innermost open node run at or above `run_id`."""
        while run_id is not None and run_id not in self._open:
            run_id = self._parents.get(run_id)
        return run_id

    def _close(self, run_id: UUID) -> None:
        with self._lock:
            run = self._open.pop(run_id, None)
            if run is None:
                return
            wall = self.clock() - run.started
            stage = NODE_STAGES.get(run.name)
            if stage is not None:  # unmapped nodes' own time is left to `other`
                self.totals[stage] += max(0.0, wall - run.inner)
            if run.parent in self._open:
                self._open[run.parent].inner += wall
