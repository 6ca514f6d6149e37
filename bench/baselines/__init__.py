"""Peer baselines: other people's published RAG graphs, run on acrag's models and stores.

Each baseline is a small LangGraph graph of its own that reuses acrag's retriever, reader,
web backend and answer prompt (through the same `graphs.deps.Deps`), so that against acrag's
strategies only the control logic differs. `GraphRunner` runs them like any strategy.
"""

from collections.abc import Callable
from typing import Any

from bench.baselines.tutorial_crag import build_tutorial_crag
from bench.baselines.tutorial_self_rag import build_tutorial_self_rag
from graphs.deps import Deps

__all__ = ["BUILDERS", "build_baselines", "build_tutorial_crag", "build_tutorial_self_rag"]

BUILDERS: dict[str, Callable[[Deps | None], Any]] = {
    "tutorial-crag": build_tutorial_crag,
    "tutorial-self-rag": build_tutorial_self_rag,
}
"""Strategy name -> graph builder (the names are listed in `bench.harness.strategies.BASELINES`)."""


def build_baselines(deps: Deps | None = None) -> dict[str, Any]:
    """Compile every baseline graph over one set of collaborators (built from the Context)."""
    shared = deps or Deps()
    return {name: build(shared) for name, build in BUILDERS.items()}
