"""The flow runtime: compiles flows with the checkpointer and runs them as typed events.

`thread_id` = run id. A run that waits for a human survives a restart: its checkpoint is in
SQLite (or the shared PostgreSQL store) and `resume()` continues from it without re-running
finished nodes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import StateGraph
from langgraph.types import Command, StateSnapshot

from core.checkpoints import open_checkpointer, open_postgres_checkpointer
from core.context import FlowContext
from core.events import Done, Failed, Interrupted, NodeFinished, NodeStarted, Progress, RunEvent
from core.leases import Lease, Leases, run_lease
from core.problems import record_failure, user_message
from core.reviews import Decision
from core.run_status import RunStatus
from core.settings import Settings
from core.store import Store
from core.store.runs import RunRecord, RunsRepo
from vault.crashpoints import crash_point

log = logging.getLogger(__name__)

STOPPED = "stopped by the user; it continues from its last checkpoint when started again"
"""The error text of a cancelled run (what `s` on home or the command again continues)."""

STREAM_MODES = ["tasks", "custom", "updates", "values"]
"""`values` gives the state after each step: the last one is the run's output (no re-read)."""


@dataclass(frozen=True)
class FlowSpec:
    """How the runtime knows a workflow."""

    name: str
    """Flow name as stored on runs (`extraction`, `normalization`, ...)."""
    build_graph: Callable[[], StateGraph[Any, FlowContext, Any, Any]]
    """Returns the uncompiled graph (with `context_schema=FlowContext`). Each flow has a state
    of its own: the runtime holds graphs of any state (the `Any`s here and in `graph()`)."""
    make_input: Callable[[dict[str, object]], Mapping[str, object]] = dict
    """Validates a run's input and returns the graph's initial state."""
    recursion_limit: Callable[[Settings], int] = lambda _settings: 100
    """The recursion limit for this flow, from settings."""
    human_in_loop: bool = True
    """Waits for a human: checkpoints are written synchronously (durability "sync")."""
    title: str = ""
    """Human-readable name."""
    max_concurrency: Callable[[Settings], int | None] = lambda _settings: None
    """How many of the run's tasks (e.g. parallel `Send`s) execute at once; None: no limit."""
    failure: Callable[[dict[str, object]], str | None] = lambda _state: None
    """The error of a run whose graph ended normally but whose final state is a failure (the
    flow handled the error itself); the run is then recorded `failed`, not `done`."""
    note_language: bool = True
    """The flow writes notes in the vault's language: its context resolves that language
    (`core.note_language`: lingua over a sample of notes, ~1.4 s the first time in a process on
    2 busy cores). A flow that does not (normalization, rubric, tutor) starts without it."""
    decisions: Mapping[str, type[Decision]] = field(default_factory=dict)
    """The answer model of each of the flow's reviews, by the review's `type`: `resume`
    validates an answer with it before the run continues (`core.reviews`)."""

    def decision(self, payload: object, value: object) -> object:
        """`value` validated as the answer to the review `payload` (plain data), or
        `InvalidDecision`; a review without a registered model takes the value as it is."""
        kind = payload.get("type") if isinstance(payload, Mapping) else None
        model = self.decisions.get(kind) if isinstance(kind, str) else None
        return value if model is None else model.parse(value).model_dump(mode="json")


ContextFactory = Callable[[str], FlowContext]


class NotAwaitingReview(ValueError):
    """The run does not wait for an answer (any more: another process may have given it)."""


class RunBusy(Exception):
    """Another live process (or task) is driving the run: it holds the run's lease."""

    def __init__(self, run_id: str, holder: str) -> None:
        super().__init__(
            f"run {run_id[:8]} is being driven by another noema process"
            + (f" ({holder})" if holder else "")
        )
        self.run_id = run_id
        self.holder = holder


class Runtime:
    """Starts, streams, resumes and lists runs of the registered flows."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        flows: Mapping[str, FlowSpec],
        context_factory: ContextFactory,
        *,
        checkpointer: BaseCheckpointSaver[str] | None = None,
        checkpoint_path: Path | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.runs = RunsRepo(store)
        self.flows = dict(flows)
        self._context_factory = context_factory
        self._context_built = False
        self._note_language: dict[str, bool] = {}
        """`needs_note_language` by run: a run's flow never changes (read once, not per turn)."""
        self._checkpointer = checkpointer
        self._checkpoint_path = checkpoint_path or settings.data_dir / "checkpoints.sqlite3"
        self._saver_cm: AbstractAsyncContextManager[BaseCheckpointSaver[str]] | None = None
        self._compiled: dict[str, Any] = {}
        self.leases = Leases.of_store(store)
        """A run is driven only while its lease is held: one process at a time, and a run
        shown `running` whose lease is free was left by a process that died."""
        self._stopping: set[str] = set()
        """Runs whose driving task is being cancelled on purpose (`stop`)."""

    async def __aenter__(self) -> Runtime:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Create the checkpointer inside the running event loop (PostgreSQL's with a shared
        store: a run started on one machine is resumed from another)."""
        if self._checkpointer is None:
            shared = getattr(self.store, "shared", None)
            self._saver_cm = (
                open_postgres_checkpointer(shared.conninfo)
                if shared is not None
                else open_checkpointer(self._checkpoint_path)
            )
            self._checkpointer = await self._saver_cm.__aenter__()

    async def close(self) -> None:
        """Close the checkpointer this runtime opened."""
        if self._saver_cm is not None:
            await self._saver_cm.__aexit__(None, None, None)
            self._saver_cm = None
            self._checkpointer = None
            self._compiled.clear()

    def graph(self, flow: str) -> Any:
        """The compiled graph of a flow (compiled once per runtime)."""
        if self._checkpointer is None:
            raise RuntimeError("Runtime.open() must be awaited before running flows")
        if flow not in self._compiled:
            spec = self._spec(flow)
            self._compiled[flow] = spec.build_graph().compile(checkpointer=self._checkpointer)
        return self._compiled[flow]

    def _spec(self, flow: str) -> FlowSpec:
        try:
            return self.flows[flow]
        except KeyError:
            raise KeyError(
                f"unknown flow {flow!r}; known: {', '.join(sorted(self.flows))}"
            ) from None

    def start(self, flow: str, input: Mapping[str, object], *, target: str = "") -> RunRecord:
        """Record a new queued run (validating its input); `stream()` executes it."""
        self._spec(flow).make_input(dict(input))
        return self.runs.create(flow, input, target=target)

    def start_once(self, flow: str, input: Mapping[str, object], target: str) -> RunRecord | None:
        """`start`, unless the target has an active run of the flow (checked in the same
        transaction, so two processes never both start one): None then."""
        self._spec(flow).make_input(dict(input))
        return self.runs.enqueue_once(flow, input, target=target)

    def _config(self, run: RunRecord) -> RunnableConfig:
        spec = self._spec(run.flow)
        return {
            "configurable": {"thread_id": run.id},
            "recursion_limit": spec.recursion_limit(self.settings),
            "max_concurrency": spec.max_concurrency(self.settings),
            "metadata": {"flow": run.flow, "run_id": run.id},
        }

    def lease(self, run_id: str) -> Lease:
        """The run's lease (RunBusy when another process or task drives the run)."""
        lease = self.leases.try_take(run_lease(run_id))
        if lease is None:
            raise RunBusy(run_id, self.leases.holder(run_lease(run_id)))
        return lease

    async def wait_until_free(
        self, run_id: str, on_wait: Callable[[str], None] | None = None
    ) -> None:
        """Wait while another process drives the run (to follow it, then read its state)."""
        lease = await self.leases.wait_async(run_lease(run_id), on_wait)
        lease.release()

    async def stream(self, run_id: str) -> AsyncIterator[RunEvent]:
        """Execute a queued run, or continue a failed or cancelled one from its last
        checkpoint."""
        with self.lease(run_id):
            run = self.runs.get(run_id)
            snapshot = await self.graph(run.flow).aget_state(self._config(run))
            has_checkpoint = bool(snapshot.values) or bool(snapshot.next)
            graph_input = None if has_checkpoint else self._spec(run.flow).make_input(run.input)
            async for event in self._drive(run, graph_input):
                yield event

    async def resume(self, run_id: str, value: object) -> AsyncIterator[RunEvent]:
        """Answer the interrupt a run waits at and continue it from its checkpoint."""
        with self.lease(run_id):
            run = self.runs.get(run_id)  # read under the lease: another process may have answered
            if run.status != "awaiting_review" and not await self._waits_after_crash(run):
                raise NotAwaitingReview(f"run {run_id} is {run.status}, not awaiting review")
            pending = await self.pending_interrupt(run_id)
            if pending is not None:  # a malformed answer: InvalidDecision, the run keeps waiting
                value = self._spec(run.flow).decision(pending.payload, value)
            crash_point("runtime.resume")
            async for event in self._drive(run, Command(resume=value)):
                yield event

    async def _waits_after_crash(self, run: RunRecord) -> bool:
        """A run recovered after a crash (queued/failed) whose checkpoint still waits at its
        interrupt: the answer given before the crash was lost, so it can be answered again."""
        return (
            run.status in ("queued", "failed") and await self.pending_interrupt(run.id) is not None
        )

    async def send(self, run_id: str, update: Mapping[str, object]) -> AsyncIterator[RunEvent]:
        """Continue a finished run with new input (a chat's next message).

        The graph runs again from START on the same thread with `update` merged into the
        checkpointed state through the state's reducers, so append-only lists stay append-only.
        """
        with self.lease(run_id):
            run = self.runs.get(run_id)
            if run.status != "done":
                raise ValueError(
                    f"run {run_id} is {run.status}; only a finished run takes new input"
                )
            async for event in self._drive(run, update, new_input=True):
                yield event

    async def run_until_pause(
        self, run_id: str, value: object = None, *, resume: bool = False
    ) -> list[RunEvent]:
        """All events of one stretch of a run (to the next interrupt, the end or a failure)."""
        source = self.resume(run_id, value) if resume else self.stream(run_id)
        return [event async for event in source]

    async def _drive(
        self, run: RunRecord, graph_input: object, *, new_input: bool = False
    ) -> AsyncIterator[RunEvent]:
        """One stretch of a run: the graph streamed as events to its end, a failure or its
        interrupts."""
        spec, graph = self._spec(run.flow), self.graph(run.flow)
        config = self._run_config(run, new_input)
        context = await self._context(run.id)
        self.runs.set_status(run.id, "running")
        interrupts: list[Interrupted] = []  # reported once the stretch ended (_stretch_ended)
        values: dict[str, object] | None = None
        try:
            async for mode, chunk in graph.astream(
                graph_input,
                config,
                context=context,
                stream_mode=STREAM_MODES,
                durability="sync" if spec.human_in_loop else "async",
            ):
                if mode == "values":
                    values = chunk
                    continue
                for event in _translate(run.id, mode, chunk):
                    if isinstance(event, Interrupted):
                        interrupts.append(event)
                    else:
                        yield event
        except (asyncio.CancelledError, GeneratorExit):
            self._let_go(run.id)
            raise
        except GraphRecursionError as exc:
            yield self._fail(run, f"recursion limit reached: {exc}", exc)
            return
        except Exception as exc:  # noqa: BLE001 - a node's failure becomes a failed run
            yield self._fail(run, user_message(exc), exc)
            return
        for event in await self._stretch_ended(run, spec, config, interrupts, values):
            yield event

    async def _context(self, run_id: str) -> FlowContext:
        """The run's context: the runtime's first one built in a thread (it may read the vault
        to detect its note language, once), the next ones at once (a thread hop on every turn
        of a chat, for nothing)."""
        if self._context_built or not self.needs_note_language(run_id):
            return self._context_factory(run_id)
        context = await asyncio.to_thread(self._context_factory, run_id)
        self._context_built = True
        return context

    def needs_note_language(self, run_id: str) -> bool:
        """Whether the run's flow writes notes in the vault's language (`FlowSpec`); True for
        an unknown run or flow, as before flows said."""
        if run_id in self._note_language:
            return self._note_language[run_id]
        try:
            flow = self.runs.get(run_id).flow
        except KeyError:
            return True
        needed = self._note_language[run_id] = (
            flow not in self.flows or self.flows[flow].note_language
        )
        return needed

    async def _stretch_ended(
        self,
        run: RunRecord,
        spec: FlowSpec,
        config: RunnableConfig,
        interrupts: list[Interrupted],
        values: dict[str, object] | None,
    ) -> list[RunEvent]:
        """The graph stopped without failing: at interrupts, handed out once the run is
        recorded awaiting review (a front end that answers at once never finds it still
        "running"); else at its end, with the final state (`values`, the last one streamed)."""
        if interrupts:
            self.runs.set_status(run.id, "awaiting_review")
            return list(interrupts)
        if values is None:  # nothing ran (a run already at its end)
            values = (await self.graph(run.flow).aget_state(config)).values
        return [self._done(run, spec, dict(values or {}))]

    def _run_config(self, run: RunRecord, new_input: bool) -> RunnableConfig:
        config = self._config(run)
        if new_input:
            # LangGraph treats input whose metadata run_id equals the checkpoint's as a re-entry
            # into the same run and ignores it; traces then fall back to the thread id (= run id)
            config["metadata"].pop("run_id", None)
        return config

    def _let_go(self, run_id: str) -> None:
        """The task driving the run was cancelled or its caller stopped listening."""
        if run_id in self._stopping:  # stopped on purpose (c on home, Ctrl-C): cancelled
            self.mark_stopped(run_id)
        else:  # the process quits or the caller let go: queued again, shown interrupted
            self._interrupted(run_id)

    def _done(self, run: RunRecord, spec: FlowSpec, output: dict[str, object]) -> Done:
        """The graph ended: the run is done, or failed when the flow says its end is one."""
        error = spec.failure(output)
        if error:
            self.runs.set_status(run.id, "failed", error=error)
        else:
            self.runs.set_status(run.id, "done")
        return Done(run.id, output)

    def _interrupted(self, run_id: str) -> None:
        try:
            self.runs.mark_interrupted(run_id)
        except Exception:  # noqa: BLE001 - the store may already be closed at shut-down
            log.warning("run %s could not be marked interrupted", run_id, exc_info=True)

    def _fail(self, run: RunRecord, error: str, exc: BaseException) -> Failed:
        """Record the failure: the user's message on the run, the raw error (with where it
        was raised) in the run's traces."""
        record_failure(self.store, run.id, run.flow, exc)
        self.runs.set_status(run.id, "failed", error=error)
        return Failed(run.id, error)

    def cancel(self, run_id: str) -> None:
        """Abandon a run that is queued, failed or awaiting review."""
        self.runs.set_status(run_id, "cancelled")

    def recover_interrupted(self) -> list[str]:
        """Runs shown `running` whose process died go back to `queued` (live ones stay)."""
        return self.runs.recover_interrupted(self.leases)

    def stop(self, run_id: str) -> None:
        """Say that the task driving this run is about to be cancelled on purpose: the model
        call under way is aborted and the run is recorded `cancelled`, to be continued from
        its last checkpoint (`stream`). The caller cancels the task."""
        self._stopping.add(run_id)

    def mark_stopped(self, run_id: str) -> bool:
        """Record a run whose driving was cancelled on purpose as `cancelled` (if it is still
        `running`, or was just queued again as interrupted); whether it was."""
        self._stopping.discard(run_id)
        run = self.runs.get(run_id)
        if run.status != "running" and not run.interrupted:  # (Ctrl-C: interrupted just now)
            return False
        self.runs.set_status(run_id, "cancelled", error=STOPPED)
        return True

    def list_runs(
        self, status: RunStatus | None = None, flow: str | None = None
    ) -> list[RunRecord]:
        """Runs, newest first."""
        return self.runs.list(status=status, flow=flow)

    async def state(self, run_id: str) -> StateSnapshot:
        """The run's latest checkpointed state snapshot (values, next nodes, interrupts)."""
        run = self.runs.get(run_id)
        snapshot: StateSnapshot = await self.graph(run.flow).aget_state(self._config(run))
        return snapshot

    async def update_state(self, run_id: str, values: Mapping[str, object], as_node: str) -> None:
        """Write `values` into the run's checkpointed state as if node `as_node` had returned
        them (through the state's reducers); the graph continues from that node's edges."""
        run = self.runs.get(run_id)
        await self.graph(run.flow).aupdate_state(self._config(run), values, as_node=as_node)

    async def pending_interrupt(self, run_id: str) -> Interrupted | None:
        """The interrupt a run waits at, read from its checkpoint (e.g. after a restart)."""
        snapshot = await self.state(run_id)
        for task in snapshot.tasks:
            for item in task.interrupts:
                return Interrupted(run_id, item.value, getattr(item, "id", ""))
        return None


def _translate(run_id: str, mode: str, chunk: object) -> list[RunEvent]:
    if mode == "custom":
        data = chunk if isinstance(chunk, dict) else {"value": chunk}
        return [Progress(run_id, str(data.get("node", "")), data)]
    if mode == "tasks" and isinstance(chunk, dict):
        return _translate_task(run_id, chunk)
    if mode == "updates" and isinstance(chunk, dict) and "__interrupt__" in chunk:
        return [
            Interrupted(run_id, item.value, getattr(item, "id", ""))
            for item in chunk["__interrupt__"]
        ]
    return []


def _translate_task(run_id: str, chunk: Mapping[str, object]) -> list[RunEvent]:
    name = str(chunk.get("name", ""))
    if name.startswith("__"):
        return []
    if "input" in chunk and "result" not in chunk:
        return [NodeStarted(run_id, name)]
    if chunk.get("error") is not None or chunk.get("interrupts"):
        return []
    result = chunk.get("result")
    update = dict(result) if isinstance(result, dict) else {}
    return [NodeFinished(run_id, name, update)]
