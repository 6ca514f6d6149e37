"""Run the compiled graph for the HTTP API: stream runs from worker threads, read thread state.

The graph's nodes are blocking (local models, vector stores), so every graph call runs in a
worker thread and hands its chunks to the event loop through a queue; the loop only forwards
them as Server-Sent Events. A client that goes away stops the run at the next chunk.
"""

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from functools import partial
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from app.server.encoding import snapshot_json, sse
from app.server.threads import ThreadRegistry

__all__ = ["STREAM_MODES", "GraphService", "ThreadBusyError"]

logger = logging.getLogger(__name__)

STREAM_MODES = ("values", "updates", "custom", "messages-tuple", "messages", "debug")
"""Stream modes a client may ask for; `messages` is served in the `messages-tuple` format."""

_DONE = object()


class ThreadBusyError(RuntimeError):
    """A run is already streaming on this thread."""


def _modes(requested: str | list[str] | None) -> list[str]:
    names = [requested] if isinstance(requested, str) else list(requested or ["values"])
    unknown = [name for name in names if name not in STREAM_MODES]
    if unknown:
        raise ValueError(f"unsupported stream_mode {unknown}; use {list(STREAM_MODES)}")
    return sorted({"messages" if name.startswith("messages") else name for name in names})


class GraphService:
    """The graph, its checkpointer-backed threads, and the runs in flight."""

    def __init__(
        self,
        graph: CompiledStateGraph,
        registry: ThreadRegistry,
        *,
        default_context: dict[str, Any] | None = None,
        max_runs: int = 8,
    ) -> None:
        if graph.checkpointer is None:
            raise ValueError("compile the graph with a checkpointer to serve threads")
        self.graph = graph
        self.registry = registry
        self.default_context = default_context or {}
        self._busy: set[str] = set()
        # Runs hold a thread for their whole length: give them their own pool, so they never
        # starve the short state and registry reads that use the default one.
        self._runs = ThreadPoolExecutor(max_workers=max_runs, thread_name_prefix="acrag-run")

    def _config(self, thread_id: str) -> RunnableConfig:
        return {"configurable": {"thread_id": thread_id}}

    def is_busy(self, thread_id: str) -> bool:
        """Return whether a run is streaming on the thread."""
        return thread_id in self._busy

    async def state(self, thread_id: str) -> dict[str, Any]:
        """Return the thread's latest state as a LangGraph `ThreadState`."""
        snapshot = await asyncio.to_thread(self.graph.get_state, self._config(thread_id))
        return snapshot_json(snapshot)

    async def history(self, thread_id: str, *, limit: int = 10) -> list[dict[str, Any]]:
        """Return the thread's states, newest first."""

        def read() -> list[dict[str, Any]]:
            states = self.graph.get_state_history(self._config(thread_id), limit=limit)
            return [snapshot_json(snapshot) for snapshot in states]

        return await asyncio.to_thread(read)

    def start(self, thread_id: str, payload: dict[str, Any]) -> AsyncIterator[bytes]:
        """Reserve the thread and return the run's SSE frames (metadata first).

        Raises:
            ThreadBusyError: A run is already streaming on the thread.
            ValueError: The payload asks for an unsupported stream mode.
        """
        modes = _modes(payload.get("stream_mode"))
        if thread_id in self._busy:
            raise ThreadBusyError(thread_id)
        self._busy.add(thread_id)
        return self._frames(thread_id, payload, modes)

    async def _frames(
        self, thread_id: str, payload: dict[str, Any], modes: list[str]
    ) -> AsyncIterator[bytes]:
        run_id = str(uuid.uuid4())
        started = time.perf_counter()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def put(item: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        worker = loop.run_in_executor(
            self._runs, partial(self._run, thread_id, payload, modes, put, stop)
        )
        try:
            yield sse("metadata", {"run_id": run_id, "attempt": 1})
            while (item := await queue.get()) is not _DONE:
                yield sse(*item)
        finally:
            stop.set()
            await asyncio.shield(worker)
            self._busy.discard(thread_id)
            logger.info("run %s on %s took %.2fs", run_id, thread_id, time.perf_counter() - started)

    def _run(
        self,
        thread_id: str,
        payload: dict[str, Any],
        modes: list[str],
        loop_put: Callable[[Any], None],
        stop: threading.Event,
    ) -> None:
        """Stream the graph in this worker thread, handing `(event, data)` pairs to `loop_put`."""
        context = {**self.default_context, **(payload.get("context") or {})}
        config: RunnableConfig = {**(payload.get("config") or {}), **self._config(thread_id)}
        try:
            self.registry.touch(thread_id, metadata=payload.get("metadata"))
            graph: Any = self.graph  # stream modes and context are checked above
            chunks = graph.stream(
                payload.get("input"),
                config,
                stream_mode=modes,
                context=context,
                subgraphs=True,
            )
            subgraphs = bool(payload.get("stream_subgraphs"))
            with closing(chunks):
                for namespace, mode, chunk in chunks:
                    if stop.is_set():
                        logger.info("client left: stopping the run on %s", thread_id)
                        break
                    if namespace and not subgraphs:
                        continue
                    # LangGraph's API names a subgraph's events `mode|namespace`.
                    loop_put(("|".join((mode, *namespace)), chunk))
            self.registry.touch(thread_id)
        except Exception as error:  # noqa: BLE001 - reported to the client as an `error` event
            logger.exception("run on %s failed", thread_id)
            loop_put(("error", {"error": type(error).__name__, "message": str(error)}))
        finally:
            loop_put(_DONE)
