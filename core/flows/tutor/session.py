"""Driving tutoring sessions from a front end (the TUI screen, the CLI, benchmarks).

A session is a run of the `tutor` flow: `start_session` records it, `turn` runs one stretch
(the first turn plans and asks; later turns append the learner's message and continue the
finished thread with `Runtime.send`; a failed turn is retried from its checkpoint).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from core.curriculum import Lesson, concept_lesson, load_curriculum, with_concepts
from core.events import RunEvent
from core.flows.tutor.graph import FLOW_NAME
from core.flows.tutor.plan import now_iso
from core.flows.tutor.state import MessageData
from core.settings import Settings
from core.store.runs import RunRecord

if TYPE_CHECKING:
    from core.runtime import Runtime
    from core.store import Store
    from core.vault_handle import VaultHandle


def lesson_input(lesson: Lesson, settings: Settings) -> dict[str, object]:
    """The flow input for a lesson, with the learner profile from settings."""
    return {
        "guidelines": lesson.guideline or lesson.title,
        "topic_info": lesson.topic_info(),
        "student_profile": settings.flows.tutor.learner.model_dump(),
        "session_context": {"estimated_duration_minutes": 20},
    }


def start_session(runtime: Runtime, lesson: Lesson, settings: Settings) -> RunRecord:
    """A new session; its first `turn` plans and asks the first question.

    It is marked running at once so the app's auto-start of queued runs leaves it to the front
    end that opened it (a process that dies mid-turn leaves it queued, to be continued).
    """
    record = runtime.start(FLOW_NAME, lesson_input(lesson, settings), target=lesson.path)
    runtime.runs.set_status(record.id, "running")
    started: RunRecord = runtime.runs.get(record.id)
    return started


def curriculum(vault: VaultHandle | None, store: Store) -> list[Lesson]:
    """The vault's curriculum, each subtopic's linked concepts resolved against the index."""
    if vault is None:
        return []
    return [with_concepts(store, x) for x in load_curriculum(vault.root, vault.layout.curriculum)]


def concept_session_lesson(vault: VaultHandle | None, store: Store, concept_id: str) -> Lesson:
    """A lesson built from one concept note."""
    if vault is None:
        raise ValueError("no vault is open: a concept session is built from its notes")
    return concept_lesson(store, vault.root, concept_id)


def student_message(text: str) -> dict[str, object]:
    """The learner's message as the conversation keeps it (a `MessageData`)."""
    return {
        "role": "student",
        "content": text,
        "timestamp": now_iso(),
        "kind": "answer",
        "hints": [],
        "step_id": "",
    }


async def turn(
    runtime: Runtime, session_id: str, text: str | None = None
) -> AsyncIterator[RunEvent]:
    """One stretch of a session: the learner's message (if any) in, the tutor's reply out."""
    run = runtime.runs.get(session_id)
    if run.status in ("queued", "failed", "running"):
        # first turn, or a turn that failed or was cut off: continue from the checkpoint
        async for event in runtime.stream(session_id):
            yield event
        return
    if text is None or not text.strip():
        raise ValueError("a message is needed to continue a session")
    async for event in runtime.send(session_id, {"conversation": [student_message(text)]}):
        yield event


async def stop_turn(runtime: Runtime, session_id: str, streamed: str) -> None:
    """A turn the learner stopped (its driving task was cancelled after `runtime.stop`): what
    the tutor had written stays in the conversation, marked `stopped`, and the session waits
    for the learner's next message as after any finished turn."""
    from core.flows.tutor import plan as p

    if streamed.strip():
        values = await session_values(runtime, session_id)
        step = p.current_step(values.get("study_plan")) or {}
        message: MessageData = {
            "role": "tutor",
            "content": streamed.strip(),
            "timestamp": now_iso(),
            "kind": "teaching",
            "hints": [],
            "step_id": step.get("step_id", ""),
            "stopped": True,
        }
        await runtime.update_state(session_id, {"conversation": [message]}, "executor")
    runtime.runs.set_status(session_id, "done")


async def session_values(runtime: Runtime, session_id: str) -> dict[str, Any]:
    """The session's latest checkpointed state (as LangGraph hands it: untyped); before its
    first checkpoint (the planner at work), its input: the topic is known from the start."""
    snapshot = await runtime.state(session_id)
    return {**runtime.runs.get(session_id).input, **snapshot.values}


def needs_retry(runtime: Runtime, session_id: str) -> bool:
    """Whether the last turn did not finish (failed or cut off) and should be run again."""
    return runtime.runs.get(session_id).status in ("queued", "failed", "running")
