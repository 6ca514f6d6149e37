"""Tavily web search with retries, domain filters and authoritative pages first."""

import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import urlparse

import requests
from langchain_core.documents import Document
from tavily import TavilyClient
from tavily import errors as tavily_errors

from stores.web_results import WebResults

__all__ = ["AUTHORITATIVE_DOMAINS", "TavilyWebSearch", "is_authoritative", "rank_authoritative"]

logger = logging.getLogger(__name__)

AUTHORITATIVE_DOMAINS = ("wikipedia.org",)


class _Retryable(Exception):
    """A failure worth another attempt (rate limit, server error, timeout, connection)."""


class _Fatal(Exception):
    """A failure another attempt will not fix (bad key, bad request, malformed body)."""


def is_authoritative(url: str, domains: Sequence[str]) -> bool:
    """Return True if `url`'s host is one of `domains` or a subdomain of one."""
    host = (urlparse(url).hostname or "").lower()
    return any(host == d or host.endswith("." + d) for d in domains)


def rank_authoritative(docs: list[Document], domains: Sequence[str]) -> list[Document]:
    """Put pages from authoritative domains first, keeping the order within each group."""
    return sorted(docs, key=lambda d: not is_authoritative(str(d.metadata["url"]), domains))


def _classify(error: Exception) -> Exception:
    if isinstance(error, tavily_errors.UsageLimitExceededError):
        return _Retryable(f"rate limited (429) {error}".strip())
    if isinstance(error, tavily_errors.TimeoutError | requests.Timeout):
        return _Retryable(f"timed out: {error}")
    if isinstance(error, requests.ConnectionError):
        return _Retryable(f"cannot connect: {error}")
    if isinstance(error, requests.HTTPError):
        status = error.response.status_code if error.response is not None else 0
        kind = _Retryable if status >= 500 or status == 0 else _Fatal
        return kind(f"HTTP {status} from Tavily")
    if isinstance(error, ValueError):  # requests' JSONDecodeError is a ValueError
        return _Fatal(f"malformed response: {error}")
    return _Fatal(f"{type(error).__name__}: {error}")


def _documents(payload: Any) -> list[Document]:
    if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
        raise _Fatal("malformed response: no 'results' list")
    docs = []
    for item in payload["results"]:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        text = item.get("raw_content") or item.get("content") or ""
        meta = {
            "url": str(item["url"]),
            "title": str(item.get("title") or ""),
            "score": float(item.get("score") or 0.0),
            "origin": "web",
            "source": str(item["url"]),
            "snippet": str(item.get("content") or ""),
        }
        if text.strip():
            docs.append(Document(page_content=str(text), metadata=meta))
    return docs


class TavilyWebSearch:
    """Search through `tavily-python`, never raising for network or server trouble."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        api_base_url: str | None = None,
        include_domains: Sequence[str] = (),
        exclude_domains: Sequence[str] = (),
        authoritative_domains: Sequence[str] = AUTHORITATIVE_DOMAINS,
        include_raw_content: bool = True,
        search_depth: Literal["basic", "advanced", "fast", "ultra-fast"] = "basic",
        retries: int = 3,
        backoff: float = 0.5,
        timeout: float = 15.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = TavilyClient(api_key=api_key, api_base_url=api_base_url)
        self.include_domains = list(include_domains)
        self.exclude_domains = list(exclude_domains)
        self.authoritative_domains = tuple(authoritative_domains)
        self.include_raw_content = include_raw_content
        self.search_depth = search_depth
        self.retries, self.backoff, self.timeout, self.sleep = retries, backoff, timeout, sleep

    def _request(self, query: str, max_results: int) -> list[Document]:
        try:
            payload = self.client.search(
                query,
                search_depth=self.search_depth,
                max_results=max_results,
                include_domains=self.include_domains or None,
                exclude_domains=self.exclude_domains or None,
                include_raw_content=self.include_raw_content,
                timeout=self.timeout,
            )
        except Exception as error:  # the client raises many unrelated types
            raise _classify(error) from error
        return _documents(payload)

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        """Return up to `max_results` pages, authoritative domains first."""
        for attempt in range(self.retries + 1):
            try:
                docs = self._request(query, max_results)
            except _Fatal as error:
                logger.warning("Tavily search failed: %s", error)
                return WebResults([], "tavily", str(error))
            except _Retryable as error:
                if attempt == self.retries:
                    reason = f"{error} (gave up after {attempt + 1} attempts)"
                    logger.warning("Tavily search degraded: %s", reason)
                    return WebResults([], "tavily", reason)
                delay = self.backoff * 2**attempt * (1 + random.random() / 4)
                logger.info("Tavily: %s; retrying in %.2fs", error, delay)
                self.sleep(delay)
                continue
            ranked = rank_authoritative(docs, self.authoritative_domains)[:max_results]
            return WebResults(ranked, "tavily", None)
        return WebResults([], "tavily", "no attempts made")
