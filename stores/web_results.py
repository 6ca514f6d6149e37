"""The web search contract: what a backend returns, and the protocol every backend meets."""

from dataclasses import dataclass, field
from typing import Protocol

from langchain_core.documents import Document

__all__ = ["WebResults", "WebSearch"]


@dataclass
class WebResults:
    """Pages found for a query, best first, and which backend found them."""

    documents: list[Document] = field(default_factory=list)
    backend: str = "none"
    degraded: str | None = None


class WebSearch(Protocol):
    """Anything that searches the web (or a stand-in for it)."""

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        """Return up to `max_results` pages for `query`."""
        ...
