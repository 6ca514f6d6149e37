"""A persistent LLM response cache that counts its hits, so reruns are cheap and honest.

LangChain keys each entry by the prompt and the model's identity with the call's settings
(model file, context size, max tokens, temperature, stop words, ...), so a rerun with the same
settings answers from the cache while any change of model or settings misses it.
"""

import threading
from pathlib import Path
from typing import Any

from langchain_community.cache import SQLiteCache
from langchain_core.globals import get_llm_cache, set_llm_cache

__all__ = ["CountingCache", "install_llm_cache"]


class CountingCache(SQLiteCache):
    """SQLite-backed LangChain cache with hit counters and a namespace.

    Entries are keyed by the namespace too (the benchmark sets it to the strategy), so two
    strategies that send the same request both pay for it once: a strategy's seconds per
    question never shrink because another strategy ran first, while a rerun of the same
    strategy is answered from the cache. Replayed responses lose their llama.cpp timings, so
    the benchmark never counts them as model time.
    """

    def __init__(self, database_path: str) -> None:
        super().__init__(database_path=database_path)
        self._lock = threading.Lock()
        self.lookups = 0
        self.hits = 0
        self.namespace = ""
        self.bypass = False
        """While true, every lookup misses and nothing is stored (to warm up the models)."""

    def _key(self, llm_string: str) -> str:
        return f"{llm_string}|namespace={self.namespace}" if self.namespace else llm_string

    def lookup(self, prompt: str, llm_string: str) -> Any:
        """Return the cached generations for this request, counting the hit."""
        if self.bypass:
            return None
        found = super().lookup(prompt, self._key(llm_string))
        with self._lock:
            self.lookups += 1
            self.hits += found is not None
        return None if found is None else [_untimed(generation) for generation in found]

    def update(self, prompt: str, llm_string: str, return_val: Any) -> None:
        """Store the generations of this request under the current namespace."""
        if not self.bypass:
            super().update(prompt, self._key(llm_string), return_val)


def _untimed(generation: Any) -> Any:
    """Drop the model timings a response was stored with: replaying it took no model time."""
    message = getattr(generation, "message", None)
    if message is None or "timings" not in message.response_metadata:
        return generation
    kept = {key: value for key, value in message.response_metadata.items() if key != "timings"}
    return generation.model_copy(
        update={"message": message.model_copy(update={"response_metadata": kept})}
    )


def install_llm_cache(path: Path) -> CountingCache:
    """Make a counting SQLite cache at `path` the process-wide LLM cache and return it.

    Installing the same path twice returns the cache already installed.
    """
    current = get_llm_cache()
    if isinstance(current, CountingCache) and Path(current.database_path) == path:  # type: ignore[attr-defined]
        return current
    path.parent.mkdir(parents=True, exist_ok=True)
    cache = CountingCache(str(path))
    cache.database_path = str(path)  # type: ignore[attr-defined]
    set_llm_cache(cache)
    return cache
