"""The answer loop every headless front end runs around a human-in-the-loop flow.

A run streams to its end, a failure or an interrupt; at an interrupt `decide(payload)` gives
the resume value, and None leaves the run waiting for review (a later front end resumes it).
The flow drivers (core/flows/*/driver.py) turn the `Stop` into their own outcome.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from core.events import Done, Failed, Interrupted, RunEvent

if TYPE_CHECKING:
    from core.runtime import Runtime

Decide = Callable[[dict[str, object]], Awaitable[object]]
"""The answer to a review (its payload): the resume value, or None to leave it waiting."""
OnEvent = Callable[[RunEvent], None]


@dataclass
class Stop:
    """Where a driven run stopped; `stopped` means the stream ended with no result."""

    status: Literal["done", "failed", "awaiting_review", "stopped"]
    output: dict[str, Any] = field(default_factory=dict)
    """The final state (done)."""
    error: str = ""
    payload: dict[str, object] | None = None
    """The interrupt left unanswered (awaiting_review)."""


async def drive_run(
    runtime: Runtime,
    run_id: str,
    events: AsyncIterator[RunEvent],
    decide: Decide | None = None,
    on_event: OnEvent | None = None,
) -> Stop:
    """Consume `events`, answering each interrupt with `decide` until the run stops.

    Cancelled (Ctrl-C in a command), the run is recorded cancelled at its last checkpoint."""
    try:
        return await _drive(runtime, run_id, events, decide, on_event)
    except (asyncio.CancelledError, KeyboardInterrupt):
        runtime.mark_stopped(run_id)
        raise


async def _drive(
    runtime: Runtime,
    run_id: str,
    events: AsyncIterator[RunEvent],
    decide: Decide | None,
    on_event: OnEvent | None,
) -> Stop:
    while True:
        pause: Interrupted | None = None
        async for event in events:
            if on_event is not None:
                on_event(event)
            if isinstance(event, Interrupted):
                pause = event
            elif isinstance(event, Done):
                return Stop("done", dict(event.output))
            elif isinstance(event, Failed):
                return Stop("failed", error=event.error)
        if pause is None:
            return Stop("stopped")
        answer = await decide(pause.payload) if decide is not None else None
        if answer is None:
            return Stop("awaiting_review", payload=pause.payload)
        events = runtime.resume(run_id, answer)
