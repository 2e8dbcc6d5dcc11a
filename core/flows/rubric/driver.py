"""Drive one rubric run to its end from any front end without Textual (the CLI uses it).

`review_note` starts a run, reports progress, and at each interrupt asks `decide(payload)`
for the resume value; `decide` returning None leaves the run waiting for review (it can be
resumed later, e.g. in the TUI).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from core.driving import Decide, drive_run
from core.events import Progress, RunEvent
from core.flows.rubric.graph import FLOW_NAME

if TYPE_CHECKING:
    from core.services import Services

Emit = Callable[[str], None]


@dataclass
class ReviewOutcome:
    """How a driven run stopped."""

    run_id: str
    status: Literal["done", "awaiting_review", "failed"]
    state: dict[str, Any] = field(default_factory=dict)
    """The final state (done), or the state at the pause."""
    error: str = ""
    payload: dict[str, Any] | None = None
    """The interrupt left unanswered (awaiting_review)."""


def describe_progress(data: Mapping[str, object]) -> str:
    """A progress event as one line."""
    if data.get("message"):
        return str(data["message"])
    stage = str(data.get("stage", ""))
    return {
        "evaluating": f"evaluating against {data.get('criteria', '')}...",
        "asking_model": "asking the model...",
        "scored": f"scored {data.get('overall', 0):.2f}",
        "revising": "the model is revising the note...",
    }.get(stage, stage)


async def review_note(
    services: Services, note_path: str, criteria: str | None, decide: Decide, emit: Emit
) -> ReviewOutcome:
    """Run the rubric flow on a note until it ends, fails, or `decide` returns None."""
    runtime = services.runtime
    run = runtime.start(FLOW_NAME, {"note_path": note_path, "criteria": criteria}, target=note_path)

    def on_event(event: RunEvent) -> None:
        if isinstance(event, Progress):
            emit(describe_progress(event.data))

    stop = await drive_run(runtime, run.id, runtime.stream(run.id), decide, on_event)
    if stop.status == "stopped":
        return ReviewOutcome(run.id, "failed", error="the run stopped without a result")
    if stop.status == "awaiting_review":
        snapshot = await runtime.state(run.id)
        return ReviewOutcome(run.id, "awaiting_review", dict(snapshot.values), payload=stop.payload)
    return ReviewOutcome(run.id, stop.status, stop.output, stop.error)
