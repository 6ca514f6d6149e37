"""Run the compiled graph for the HTTP API: stream runs from worker threads, read thread state.

The graph's nodes are blocking (local models, vector stores), so every graph call runs in a
worker thread and hands its chunks to the event loop through a queue; the loop only forwards
them as Server-Sent Events. A thread is busy from the moment its run is accepted until the
worker has stopped the graph, whatever ends the run: the last chunk, an error, a cancel, the
client going away, or the server's time limit. Only the worker frees the thread, so neither a
vanished client nor a stream that is never read can leave it busy.
"""

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from app.server.encoding import public_message, snapshot_json, sse
from app.server.run_control import RunControl, RunStopped, StopCallback
from app.server.threads import ThreadRegistry
from app.server.turns import close_turn
from app.server.validation import RunRequest

__all__ = ["DEFAULT_RUN_TIMEOUT_S", "GraphService", "Run", "ThreadBusyError"]

logger = logging.getLogger(__name__)

DEFAULT_RUN_TIMEOUT_S = 300.0
"""Longest a run may take before the server stops it (`acrag serve --run-timeout`)."""

_DONE = object()


class ThreadBusyError(RuntimeError):
    """A run is already streaming on this thread."""


@dataclass
class Run:
    """One accepted run: its ids, stop control, and the chunks on their way to the client."""

    run_id: str
    thread_id: str
    control: RunControl
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    done: "asyncio.Future[None] | None" = None
    started: float = field(default_factory=time.perf_counter)


class GraphService:
    """The graph, its checkpointer-backed threads, and the runs in flight."""

    def __init__(
        self,
        graph: CompiledStateGraph,
        registry: ThreadRegistry,
        *,
        default_context: dict[str, Any] | None = None,
        max_runs: int = 8,
        run_timeout_s: float = DEFAULT_RUN_TIMEOUT_S,
    ) -> None:
        if graph.checkpointer is None:
            raise ValueError("compile the graph with a checkpointer to serve threads")
        self.graph = graph
        self.registry = registry
        self.default_context = default_context or {}
        self.run_timeout_s = run_timeout_s
        self._active: dict[str, Run] = {}
        # Runs hold a thread for their whole length: give them their own pool, so they never
        # starve the short state and registry reads that use the default one.
        self._pool = ThreadPoolExecutor(max_workers=max_runs, thread_name_prefix="acrag-run")

    def _config(self, thread_id: str) -> RunnableConfig:
        return {"configurable": {"thread_id": thread_id}}

    def is_busy(self, thread_id: str) -> bool:
        """Return whether a run is in flight on the thread."""
        return thread_id in self._active

    def close_open_turns(self, *, limit: int = 100_000) -> int:
        """Close every turn a crash left open (at start-up); return how many were closed."""
        threads = self.registry.search(limit=limit)
        return sum(close_turn(self.graph, thread["thread_id"]) for thread in threads)

    async def state(self, thread_id: str) -> dict[str, Any]:
        """Return the thread's latest state as a LangGraph `ThreadState`."""
        snapshot = await asyncio.to_thread(self.graph.get_state, self._config(thread_id))
        return snapshot_json(snapshot)

    async def history(
        self,
        thread_id: str,
        *,
        limit: int = 10,
        before: str | None = None,
        metadata: dict[str, Any] | None = None,
        turns: bool = False,
    ) -> list[dict[str, Any]]:
        """Return the thread's states, newest first.

        Args:
            thread_id: The thread.
            limit: How many states to return.
            before: Only states older than this checkpoint id.
            metadata: Only states whose checkpoint metadata contains these pairs.
            turns: Only each finished run's last state (one per turn), `limit` of them.
        """
        before_config: RunnableConfig | None = None
        if before:
            before_config = {"configurable": {"thread_id": thread_id, "checkpoint_id": before}}

        def read() -> list[dict[str, Any]]:
            states = self.graph.get_state_history(
                self._config(thread_id),
                filter=metadata or None,
                before=before_config,
                limit=None if turns else limit,
            )
            found: list[dict[str, Any]] = []
            for snapshot in states:
                if turns and snapshot.next:
                    continue
                found.append(snapshot_json(snapshot))
                if len(found) >= limit:
                    break
            return found

        return await asyncio.to_thread(read)

    async def delete(self, thread_id: str) -> bool:
        """Delete a thread and every checkpoint it has; return whether it existed.

        Raises:
            ThreadBusyError: A run is in flight on the thread.
        """
        if self.is_busy(thread_id):
            raise ThreadBusyError(thread_id)

        def remove() -> bool:
            existed = self.registry.delete(thread_id)
            saver: Any = self.graph.checkpointer
            saver.delete_thread(thread_id)
            return existed

        return await asyncio.to_thread(remove)

    def start(self, thread_id: str, request: RunRequest) -> Run:
        """Reserve the thread and start the run in a worker thread.

        Raises:
            ThreadBusyError: A run is already in flight on the thread.
        """
        if thread_id in self._active:
            raise ThreadBusyError(thread_id)
        loop = asyncio.get_running_loop()
        run = Run(str(uuid.uuid4()), thread_id, RunControl(timeout_s=self.run_timeout_s))
        self._active[thread_id] = run

        def put(item: Any) -> None:
            loop.call_soon_threadsafe(run.queue.put_nowait, item)

        def release() -> None:
            loop.call_soon_threadsafe(self._release, run)

        try:
            run.done = loop.run_in_executor(self._pool, self._run, run, request, put, release)
        except RuntimeError:
            self._release(run)
            raise
        return run

    def _release(self, run: Run) -> None:
        if self._active.get(run.thread_id) is run:
            del self._active[run.thread_id]
        took = time.perf_counter() - run.started
        logger.info("run %s on %s took %.2fs", run.run_id, run.thread_id, took)

    async def cancel(self, thread_id: str, run_id: str, *, wait: bool = False) -> bool:
        """Tell the thread's run to stop; return False if no such run is in flight."""
        run = self._active.get(thread_id)
        if run is None or run.run_id != run_id:
            return False
        run.control.stop("cancelled")
        if wait and run.done is not None:
            await asyncio.shield(run.done)
        return True

    async def frames(self, run: Run) -> AsyncIterator[bytes]:
        """Yield the run's SSE frames: `metadata` with the run id first, then its chunks.

        If the client stops reading (it went away), the run is told to stop.
        """
        finished = False
        try:
            yield sse("metadata", {"run_id": run.run_id, "attempt": 1})
            while (item := await run.queue.get()) is not _DONE:
                yield sse(*item)
            finished = True
        finally:
            if not finished:
                logger.info("client left: stopping run %s on %s", run.run_id, run.thread_id)
                run.control.stop("disconnected")

    def _run(
        self,
        run: Run,
        request: RunRequest,
        put: Callable[[Any], None],
        release: Callable[[], None],
    ) -> None:
        """Stream the graph in this worker thread, handing `(event, data)` pairs to `put`."""
        control = run.control
        try:
            self.registry.touch(run.thread_id, metadata=request.metadata)
            self._stream(run, request, put)
            self.registry.touch(run.thread_id)
        except RunStopped as stopped:
            logger.info("run %s on %s stopped: %s", run.run_id, run.thread_id, stopped.reason)
            self._close_quietly(run.thread_id)
            put(("error", control.stopped_event(stopped.reason)))
        except Exception as error:  # noqa: BLE001 - reported to the client as an `error` event
            self._close_quietly(run.thread_id)
            if (reason := control.reason) is not None:  # a node turned the stop into its error
                put(("error", control.stopped_event(reason)))
            else:
                logger.exception("run on %s failed", run.thread_id)
                message = public_message(str(error))
                put(("error", {"error": type(error).__name__, "message": message}))
        finally:
            control.finished.set()
            release()
            put(_DONE)

    def _close_quietly(self, thread_id: str) -> None:
        try:
            close_turn(self.graph, thread_id)
        except Exception as error:  # noqa: BLE001 - the next run's question still wins
            logger.warning("could not close the stopped turn on %s: %s", thread_id, error)

    def _stream(self, run: Run, request: RunRequest, put: Callable[[Any], None]) -> None:
        config: RunnableConfig = {
            **request.config,  # type: ignore[typeddict-item]
            **self._config(run.thread_id),
            "callbacks": [StopCallback(run.control)],
        }
        graph: Any = self.graph  # stream modes and context were checked with the request
        chunks = graph.stream(
            request.input,
            config,
            stream_mode=request.modes,
            context={**self.default_context, **request.context},
            subgraphs=True,
        )
        with closing(chunks):
            for namespace, mode, chunk in chunks:
                run.control.check()
                if namespace and not request.subgraphs:
                    continue
                # LangGraph's API names a subgraph's events `mode|namespace`.
                put(("|".join((mode, *namespace)), chunk))
