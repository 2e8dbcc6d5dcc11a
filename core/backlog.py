"""Bulk extraction: every unprocessed source, each its own run, a few at a time.

`noema extract --all` and home's "extract all" drive the backlog with `Backlog.run()`: the
sources whose `processed_date` is unset, each through its own extraction run (the one it has,
continued from its last checkpoint, or a new one) to its review, at most `runs` at once so a
pool of servers stays busy without a pile of requests. Reviews wait for the user as always.

Stopping (Ctrl-C, the app's stop) cancels the runs under way at their last checkpoint and
queues them again: the next pass continues them, never starts a second run for a source.
When a run fails because the model is gone, the pass waits for the model (checking with
backoff) and gives the source another try, as the app's queued runs wait for theirs.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from core.events import Done, Failed, Interrupted, RunEvent
from core.runtime import RunBusy
from core.store.runs import RunRecord
from local_llm.deployments import capacity

if TYPE_CHECKING:
    from core.services import Services
    from core.settings import Settings
    from local_llm import LLMClient

FLOW = "extraction"
Status = Literal["review", "failed", "done", "elsewhere", "waiting"]
ModelReady = Callable[[], Awaitable[tuple[bool, str]]]
WAIT_FIRST_S, WAIT_MOST_S = 2.0, 60.0


@dataclass
class BacklogCounts:
    """Where a pass over the backlog stands; `line()` says it in one line."""

    total: int = 0
    """Sources in the backlog when the pass started."""
    review: int = 0
    """Reached their review in this pass."""
    waiting: int = 0
    """Already waited for their review before the pass."""
    failed: int = 0
    done: int = 0
    """Ended without a review (nothing to extract)."""
    elsewhere: int = 0
    """Driven by another noema process (or the app) meanwhile."""
    running: int = 0
    model_wait: str = ""
    """Why the pass waits for the model ('' when it does not)."""
    started: float = field(default_factory=time.monotonic)

    @property
    def finished(self) -> int:
        return self.review + self.failed + self.done

    @property
    def left(self) -> int:
        return self.total - self.finished - self.waiting - self.elsewhere

    @property
    def per_minute(self) -> float:
        minutes = (time.monotonic() - self.started) / 60
        return self.finished / minutes if minutes > 0 else 0.0

    def line(self) -> str:
        parts = [f"{self.finished + self.waiting}/{self.total}", f"{self.review} to review"]
        parts += [
            f"{n} {what}"
            for n, what in (
                (self.waiting, "already waiting"),
                (self.failed, "failed"),
                (self.done, "nothing to extract"),
                (self.elsewhere, "driven elsewhere"),
                (self.running, "running"),
            )
            if n
        ]
        if self.finished:
            parts.append(f"{self.per_minute:.1f}/min")
            if self.left > 0 and self.per_minute > 0:
                parts.append(f"~{_duration(self.left / self.per_minute * 60)} left")
        if self.model_wait:
            parts.append(f"waiting for the model: {self.model_wait}")
        return " · ".join(parts)


@dataclass(frozen=True)
class Outcome:
    """How one source's run ended in this pass."""

    source: str
    run_id: str
    status: Status
    error: str = ""


class Backlog:
    """One pass over the extraction backlog (see the module docstring)."""

    def __init__(
        self,
        services: Services,
        *,
        runs: int | None = None,
        on_progress: Callable[[BacklogCounts], None] | None = None,
        on_event: Callable[[RunEvent], None] | None = None,
        claim: Callable[[str], bool] | None = None,
        release: Callable[[str], None] | None = None,
        model_ready: ModelReady | None = None,
    ) -> None:
        """`claim(run_id)`/`release(run_id)` let a front end that drives runs itself (the
        app) keep them apart; `model_ready()` says whether the model answers now."""
        self.services = services
        self.runs = runs or bulk_runs(services.settings, services.llm)
        self.on_progress = on_progress
        self.on_event = on_event
        self.claim = claim or (lambda _run_id: True)
        self.release = release or (lambda _run_id: None)
        self.model_ready = model_ready or (lambda: default_model_ready(services))
        self.counts = BacklogCounts()
        self.outcomes: list[Outcome] = []
        self._todo: deque[str] = deque()
        self._retried: set[str] = set()
        self._in_flight: set[str] = set()
        self._model_lock = asyncio.Lock()

    def sources(self) -> list[str]:
        """The unprocessed sources of the index, by path."""
        rows = self.services.store.query(
            "SELECT path FROM sources WHERE processed_date IS NULL ORDER BY path"
        )
        return [row[0] for row in rows]

    def plan(self) -> int:
        """Sort the backlog into what this pass runs and what already waits for its review
        (`counts.waiting`); how many sources it runs."""
        sources = self.sources()
        self.counts = BacklogCounts(total=len(sources))
        self._todo.clear()
        for rel in sources:
            latest = self._latest(rel)
            if latest is not None and latest.status == "awaiting_review":
                self.counts.waiting += 1
            elif latest is None or latest.status in ("queued", "running", "failed"):
                self._todo.append(rel)
            else:  # done or cancelled: the user ended it; a new run is theirs to ask for
                self.counts.total -= 1
        return len(self._todo)

    async def run(self) -> list[Outcome]:
        """Drive the backlog to its end (or until cancelled: see the module docstring)."""
        self.plan()
        self._report()
        workers = [
            asyncio.create_task(self._worker()) for _ in range(min(self.runs, len(self._todo)))
        ]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            self.requeue_stopped()
            raise
        return self.outcomes

    def requeue_stopped(self) -> list[str]:
        """Runs this pass left `running` (stopped mid-way) go back to `queued`, to continue
        from their last checkpoint; a live process's runs are left alone (core.leases)."""
        return list(self.services.recover_interrupted())

    # -- one source ---------------------------------------------------------------------

    async def _worker(self) -> None:
        while self._todo:
            await self._model_back()
            if not self._todo:
                return
            rel = self._todo.popleft()
            await self._one(rel)

    async def _one(self, rel: str) -> None:
        run = self._run_for(rel)
        if run is None or not self.claim(run.id):
            self._finish(Outcome(rel, run.id if run else "", "elsewhere"))
            return
        self._in_flight.add(run.id)
        self.counts.running += 1
        self._report()
        try:
            outcome = await self._drive(rel, run)
        finally:
            self.counts.running -= 1
            self._in_flight.discard(run.id)
            self.release(run.id)
        if outcome.status == "failed" and rel not in self._retried:
            ok, detail = await self.model_ready()
            if not ok:  # the model went away: wait for it, then give the source another try
                self._retried.add(rel)
                self.counts.model_wait = detail
                self._todo.appendleft(rel)
                self._report()
                return
        self._finish(outcome)

    async def _drive(self, rel: str, run: RunRecord) -> Outcome:
        status: Status = "done"
        error = ""
        try:
            async for event in self.services.runtime.stream(run.id):
                if self.on_event is not None:
                    self.on_event(event)
                if isinstance(event, Interrupted):
                    status = "review"
                elif isinstance(event, Failed):
                    status, error = "failed", event.error
                elif isinstance(event, Done):
                    status = "done"
        except RunBusy:
            return Outcome(rel, run.id, "elsewhere")
        return Outcome(rel, run.id, status, error)

    def _run_for(self, rel: str) -> RunRecord | None:
        """The source's run to continue, or a new one (None: another process just made one
        and drives it)."""
        latest = self._latest(rel)
        if latest is not None and latest.status in ("queued", "running", "failed"):
            return latest
        created = self.services.runtime.start_once(FLOW, {"source": rel}, rel)
        return created or self._latest(rel)

    def _latest(self, rel: str) -> RunRecord | None:
        row = self.services.store.query_one(
            "SELECT id FROM runs WHERE flow=? AND target=? ORDER BY created_at DESC LIMIT 1",
            (FLOW, rel),
        )
        return self.services.runtime.runs.get(row[0]) if row is not None else None

    def _finish(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        if outcome.status == "review":
            self.counts.review += 1
        elif outcome.status == "failed":
            self.counts.failed += 1
        elif outcome.status == "done":
            self.counts.done += 1
        else:
            self.counts.elsewhere += 1
        self._report()

    async def _model_back(self) -> None:
        """While the model is gone, one worker checks it with backoff; the others wait."""
        if not self.counts.model_wait:
            return
        async with self._model_lock:
            delay = WAIT_FIRST_S
            while self.counts.model_wait:
                await asyncio.sleep(delay)
                ok, detail = await self.model_ready()
                self.counts.model_wait = "" if ok else detail
                delay = min(WAIT_MOST_S, delay * 2)
                self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.counts)


def bulk_runs(settings: Settings, llm: LLMClient) -> int:
    """How many sources at once: `flows.extraction.bulk_runs`, else twice the default
    role's pool capacity (2 without a pool)."""
    configured = settings.flows.extraction.bulk_runs
    return configured or 2 * (capacity(llm.config("default").deployments) or 1)


async def default_model_ready(services: Services) -> tuple[bool, str]:
    """Whether the default role's server (or one of its pool's) answers with its model."""
    from core.model_health import model_check, server_check

    server, models = await server_check(services.llm, "default", 5.0)
    if server.status == "failed":
        return False, server.line
    model = model_check(services.llm.config("default"), models)
    return model.status != "failed", model.line


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
