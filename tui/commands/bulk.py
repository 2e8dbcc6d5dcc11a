"""`noema extract --all`: the whole backlog of unprocessed sources, each its own run.

Progress goes to stderr, one line per source that reaches its review (or fails), with the
counts, the rate and the time left; the summary goes to stdout. Ctrl-C stops the pass: the
runs under way stop at their last checkpoint and are queued again, so the same command
continues them (core.backlog).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from tui.commands import CommandError, err, open_flows, vault_of

if TYPE_CHECKING:
    from core.backlog import Backlog, BacklogCounts, Outcome
    from core.settings import Settings
    from local_llm import Backend


async def extract_all(
    settings: Settings, backend: Backend | None = None, runs: int | None = None
) -> int:
    from core.backlog import Backlog, default_model_ready
    from core.repair import repair

    async with open_flows(settings, backend=backend) as services:
        repair(services)
        await vault_of(services).index.sync_async()
        ok, detail = await default_model_ready(services)
        if not ok:
            raise CommandError(f"the model is not ready: {detail}; nothing was started")
        printer = Printer()
        backlog = Backlog(services, runs=runs, on_progress=printer.progress)
        err(
            f"extracting the backlog, {backlog.runs} sources at a time (flows.extraction.bulk_runs)"
        )
        started = time.monotonic()
        try:
            outcomes = await backlog.run()
        except asyncio.CancelledError:
            err(f"stopped: {backlog.counts.line()}")
            err("every run stopped at its last checkpoint; `noema extract --all` continues them")
            raise
        print(summary(backlog, outcomes, time.monotonic() - started))
        return 1 if any(o.status == "failed" for o in outcomes) else 0


class Printer:
    """A progress line each time a source finishes (or the pass starts waiting)."""

    def __init__(self) -> None:
        self.seen: tuple[int, ...] = ()

    def progress(self, counts: BacklogCounts) -> None:
        key = (counts.finished, counts.waiting, counts.elsewhere, bool(counts.model_wait))
        if key != self.seen:
            self.seen = key
            err(f"[{counts.line()}]")


def summary(backlog: Backlog, outcomes: list[Outcome], seconds: float) -> str:
    counts = backlog.counts
    if counts.total == 0:
        return "no unprocessed source: nothing to extract"
    lines = [f"{counts.total} sources in {seconds:.0f} s: {counts.line()}"]
    for outcome in outcomes:
        if outcome.status == "failed":
            lines.append(f"  failed  {outcome.source}: {outcome.error}")
    reviews = [o for o in outcomes if o.status == "review"]
    for outcome in reviews[:20]:
        lines.append(f"  review  {outcome.source}  (run {outcome.run_id[:8]})")
    if len(reviews) > 20:
        lines.append(f"  ... and {len(reviews) - 20} more (`noema runs`)")
    if reviews or counts.waiting:
        lines.append(
            "review them in the app (`noema`) or: noema review RUN --approve | --feedback TEXT"
        )
    if counts.failed:
        lines.append(
            "`noema extract --all` again continues the failed runs from the step that failed"
        )
    return "\n".join(lines)
