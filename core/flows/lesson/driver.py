"""Drive one lesson run from any front end without Textual (the CLI and the screen use it).

`drive_lesson` starts (or resumes) a run, hands every event to `on_event`, and at the
escalation interrupt asks `decide(payload)` for the answer; `decide` returning None leaves the
run waiting for review.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from core.driving import Decide, OnEvent, drive_run
from core.flows.lesson.graph import FLOW_NAME
from core.flows.lesson.sources import resolve_concept
from core.flows.lesson.traces import PhaseTrace, SavingsReport, phase_traces, savings_report

if TYPE_CHECKING:
    from core.services import Services


@dataclass
class LessonOutcome:
    """How a driven run stopped."""

    run_id: str
    status: Literal["done", "awaiting_review", "failed"]
    state: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    payload: dict[str, Any] | None = None
    traces: list[PhaseTrace] = field(default_factory=list)
    savings: SavingsReport = field(kw_only=True)


def start_lesson(services: Services | None, data: dict[str, object]) -> str:
    """Record a new lesson run after checking its input; returns its id.

    A concept or note that does not exist is a `ValueError` before any run is recorded (a
    typo leaves no failed run behind); so are services not open yet (None)."""
    if services is None:
        raise ValueError("no vault is configured: set vault.path")
    check_input(services, data)
    target = str(data.get("concept") or data.get("note_path") or "")
    return str(services.runtime.start(FLOW_NAME, data, target=target).id)


def check_input(services: Services, data: Mapping[str, object]) -> None:
    """The concept note (generate) or the lesson note (review) exists in the vault."""
    vault = getattr(services, "vault", None)
    if vault is None:
        raise ValueError("no vault is configured: set vault.path")
    if data.get("mode") == "review":
        path = str(data.get("note_path") or "")
        if not path or not (vault.root / path).is_file():
            raise ValueError(f"no lesson note {path!r} in the vault")
        return
    concept = str(data.get("concept") or "")
    found = resolve_concept(services.store, concept) if concept.strip() else None
    if found is None or not (vault.root / found).is_file():
        raise ValueError(f"no concept note named {concept!r} (title, alias or vault path)")


async def drive_lesson(
    services: Services,
    run_id: str,
    decide: Decide | None = None,
    on_event: OnEvent | None = None,
    *,
    resume: object = None,
) -> LessonOutcome:
    """Run to the end, a failure, or an unanswered escalation."""
    runtime = services.runtime
    events = runtime.resume(run_id, resume) if resume is not None else runtime.stream(run_id)
    stop = await drive_run(runtime, run_id, events, decide, on_event)
    if stop.status == "stopped":
        return _outcome(services, run_id, "failed", error="the run stopped unexpectedly")
    return _outcome(services, run_id, stop.status, stop.output, stop.error, stop.payload)


def _outcome(
    services: Services,
    run_id: str,
    status: Literal["done", "awaiting_review", "failed"],
    state: dict[str, Any] | None = None,
    error: str = "",
    payload: dict[str, Any] | None = None,
) -> LessonOutcome:
    store = services.store
    return LessonOutcome(
        run_id,
        status,
        state or {},
        error,
        payload,
        phase_traces(store, run_id),
        savings=savings_report(store, run_id, getattr(services, "settings", None)),
    )
