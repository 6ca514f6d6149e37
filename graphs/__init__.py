"""The acrag graph: state, configuration, routers and assembly.

`build_graph` loads lazily, so node modules can import `graphs.context` and
`graphs.state` without importing the whole graph.
"""

from typing import Any

from graphs.context import Context
from graphs.state import InputState, State
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
    raise AttributeError(f"module 'graphs' has no attribute {name!r}")
