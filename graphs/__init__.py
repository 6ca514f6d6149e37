"""The acrag graph: state, configuration, routers and assembly.

`build_graph` and the state types load lazily, so node modules can import `graphs.context`
without importing the whole graph, and the CLI reads `Context` without loading LangGraph.
"""

from typing import Any

from graphs.context import Context
from graphs.validation import InvalidContextError, InvalidQuestionError

__all__ = [
    "Context",
    "InputState",
    "InvalidContextError",
    "InvalidQuestionError",
    "State",
    "build_graph",
]


def __getattr__(name: str) -> Any:
    if name == "build_graph":
        from graphs.graph import build_graph

        return build_graph
    if name in ("InputState", "State"):
        from graphs import state

        return getattr(state, name)
    raise AttributeError(f"module 'graphs' has no attribute {name!r}")
