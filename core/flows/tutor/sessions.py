"""Tutoring sessions and mastery per concept note, in the store (migration 0006).

A session row is a summary for listing (title, status, mastery); the session itself is its
thread in the checkpointer. Mastery per concept keeps one row per (session, concept): a
concept's mastery is that of the session that practiced it last, and `due_for_practice`
ranks concepts so the weakest and longest-unpracticed come first (`core.flows.tutor.progress`
keeps every change of mastery, for charts, and ranks subtopics too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from core.flows.tutor.plan import mastery as plan_mastery
from core.flows.tutor.plan import now_iso, progress
from core.flows.tutor.progress import days_between, practice_priority, record_history
from core.flows.tutor.state import SimplifiedState

if TYPE_CHECKING:
    from core.store import Store
    from core.store.runs import RunRecord

SessionStatus = Literal["active", "completed", "needs_another_approach"]


@dataclass(frozen=True)
class SessionRow:
    """One session as listed."""

    id: str
    title: str
    subject: str
    topic: str
    subtopic: str
    concept_id: str | None
    status: SessionStatus
    mastery: float
    steps_completed: int
    steps_total: int
    turns: int
    summary_path: str | None
    created_at: str
    updated_at: str
    state: str = ""
    """Where the session stands, from its run: `failed`, `interrupted`, `running`, `waiting
    for your answer`, `completed`... (`session_state`)."""


RESUMABLE = ("failed", "interrupted", "waiting for your answer", "not started")
"""States a session is continued from with `noema tutor --resume` (or Enter in the app)."""


@dataclass(frozen=True)
class DueConcept:
    """A concept note due for practice."""

    concept_id: str
    title: str
    mastery: float
    last_practiced: str
    days_since: float
    priority: float
    """Higher is more urgent (`core.flows.tutor.progress.practice_priority`)."""


def record_session(store: Store, session_id: str, state: SimplifiedState) -> None:
    """Insert or update the session's row from its state (called at the end of every turn)."""
    info = state.get("topic_info") or {}
    plan = state.get("study_plan")
    done, total = progress(plan)
    outcome = state.get("outcome") or ""
    status = outcome if outcome else "active"
    turns = sum(1 for m in state.get("conversation") or [] if m.get("role") == "student")
    concepts = info.get("concepts") or []
    stamp = now_iso()
    store.execute(
        "INSERT INTO tutor_sessions (id, title, subject, topic, subtopic, concept_id, status,"
        " mastery, steps_completed, steps_total, turns, summary_path, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(id) DO UPDATE SET status=excluded.status, mastery=excluded.mastery,"
        " steps_completed=excluded.steps_completed, steps_total=excluded.steps_total,"
        " turns=excluded.turns, summary_path=COALESCE(excluded.summary_path, summary_path),"
        " updated_at=excluded.updated_at",
        (
            session_id,
            info.get("title") or "session",
            info.get("subject", ""),
            info.get("topic", ""),
            info.get("subtopic", ""),
            concepts[0]["id"] if info.get("source") == "concept" and concepts else None,
            status,
            plan_mastery(plan),
            done,
            total,
            turns,
            (state.get("summary") or {}).get("note_path") or None,
            state.get("created_at") or stamp,
            stamp,
        ),
    )


def record_mastery(store: Store, session_id: str, state: SimplifiedState) -> None:
    """The session's current mastery for each concept note it teaches, and a point of
    history for each concept and subtopic whose mastery changed."""
    concepts = (state.get("topic_info") or {}).get("concepts") or []
    value = plan_mastery(state.get("study_plan"))
    stamp = now_iso()
    store.executemany(
        "INSERT INTO tutor_mastery (session_id, concept_id, title, mastery, practiced_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT(session_id, concept_id) DO UPDATE SET"
        " mastery=excluded.mastery, practiced_at=excluded.practiced_at, title=excluded.title",
        [(session_id, c["id"], c["title"], value, stamp) for c in concepts],
    )
    record_history(store, session_id, state)


def _row(row: Any) -> SessionRow:
    return SessionRow(*tuple(row))


def list_sessions(store: Store, limit: int = 100) -> list[SessionRow]:
    """Sessions, most recently active first, each with its state. A session whose first turn
    failed or was cut off has no row yet (rows are written when a turn ends): its run stands
    for it, since it is resumable work too."""
    from core.store.runs import RunsRepo

    rows = store.query(
        "SELECT id, title, subject, topic, subtopic, concept_id, status, mastery, steps_completed,"
        " steps_total, turns, summary_path, created_at, updated_at FROM tutor_sessions"
        " ORDER BY updated_at DESC, created_at DESC LIMIT ?",
        (limit,),
    )
    runs = {run.id: run for run in RunsRepo(store).list(flow="tutor")}
    listed = [_row(row) for row in rows]
    unplanned = [_unplanned(run) for run in runs.values() if run.id not in {r.id for r in listed}]
    stated = [replace(row, state=session_state(row, runs.get(row.id))) for row in listed]
    stated += [replace(row, state=session_state(row, runs[row.id])) for row in unplanned]
    stated.sort(key=lambda row: (row.updated_at, row.created_at), reverse=True)
    return stated[:limit]


def _unplanned(run: RunRecord) -> SessionRow:
    """A session without its row: what its run's input says about it."""
    topic = run.input.get("topic_info")
    info: Mapping[str, Any] = topic if isinstance(topic, Mapping) else {}
    concepts = info.get("concepts") or []
    return SessionRow(
        id=run.id,
        title=info.get("title") or run.target or "session",
        subject=info.get("subject", ""),
        topic=info.get("topic", ""),
        subtopic=info.get("subtopic", ""),
        concept_id=concepts[0]["id"] if info.get("source") == "concept" and concepts else None,
        status="active",
        mastery=0.0,
        steps_completed=0,
        steps_total=0,
        turns=0,
        summary_path=None,
        created_at=run.created_at,
        updated_at=run.updated_at,
    )


def session_state(row: SessionRow, run: RunRecord | None) -> str:
    """Where a session stands, in the words home's runs table uses for its run."""
    if run is not None and run.interrupted:
        return "interrupted"
    if run is not None and run.status in ("failed", "running", "cancelled"):
        return run.status
    if run is not None and run.status == "queued":
        return "not started"
    if row.status == "active":
        return "waiting for your answer"
    return row.status.replace("_", " ")


def find_session(store: Store, prefix: str) -> SessionRow:
    """The session whose id is or starts with `prefix` (KeyError if none or ambiguous)."""
    rows = [s for s in list_sessions(store, 10_000) if s.id.startswith(prefix)]
    if len(rows) != 1:
        problem = "no session" if not rows else f"{len(rows)} sessions"
        raise KeyError(f"{problem} with id {prefix!r}")
    return rows[0]


def _latest(store: Store) -> dict[str, tuple[str, float, str]]:
    """concept id -> (title, mastery, practiced_at) of its most recent practice."""
    rows = store.query(
        "SELECT concept_id, title, mastery, practiced_at FROM tutor_mastery"
        " ORDER BY practiced_at, rowid"
    )
    return {row[0]: (row[1], float(row[2]), row[3]) for row in rows}


def concept_mastery(store: Store) -> dict[str, tuple[float, str]]:
    """concept id -> (mastery of its latest practice, when)."""
    return {cid: (value, when) for cid, (_, value, when) in _latest(store).items()}


def due_for_practice(
    store: Store, limit: int = 5, *, now: datetime | None = None
) -> list[DueConcept]:
    """Practiced concepts, most due first: the weakest and longest-unpracticed."""
    now = now or datetime.now(UTC)
    due = []
    for concept_id, (title, value, practiced) in _latest(store).items():
        days = days_between(practiced, now)
        priority = practice_priority(float(value), days)
        due.append(DueConcept(concept_id, title, float(value), practiced, days, priority))
    due.sort(key=lambda d: (-d.priority, d.last_practiced, d.title.lower()))
    return due[:limit]
