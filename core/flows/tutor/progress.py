"""The learner's mastery over time (migration 0010) and what is due for practice.

Every evaluation that changes a session's mastery adds a point to `tutor_mastery_history`
for each concept note the session teaches and for its curriculum subtopic, so a concept or a
subtopic practiced in several sessions has a line across them.

Due for practice, plainly: everything practiced at least once is ranked by
`0.6 x (1 - latest mastery) + 0.4 x staleness`, where staleness is the days since it was last
practiced divided by 14 (capped at 1). A subtopic at 30% practiced yesterday (0.45) comes
before one at 90% untouched for a week (0.26); after two weeks untouched even a mastered one
counts 0.4. Nothing is hidden: the ranking is a reading order, not a schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from core.flows.tutor.plan import mastery as plan_mastery
from core.flows.tutor.plan import now_iso
from core.flows.tutor.state import SimplifiedState, TopicInfoData

if TYPE_CHECKING:
    from core.store import Store

Kind = Literal["concept", "subtopic"]
FORGETTING_DAYS = 14.0
"""After this many days without practice an item counts as fully stale, whatever its mastery."""
WEAKNESS_WEIGHT = 0.6
STALENESS_WEIGHT = 0.4


@dataclass(frozen=True)
class MasteryPoint:
    """One recorded mastery value."""

    session_id: str
    mastery: float
    recorded_at: str


@dataclass(frozen=True)
class Tracked:
    """A concept note or a subtopic the learner practiced, with its latest mastery."""

    kind: Kind
    ref: str
    """The concept's id, or `subject / topic / subtopic`."""
    title: str
    mastery: float
    last_practiced: str
    sessions: int
    days_since: float
    priority: float
    """How due it is (higher first): see the module's docstring."""


def subtopic_ref(info: Mapping[str, Any]) -> str:
    """`subject / topic / subtopic` of a curriculum session ('' for a concept session)."""
    if not info.get("subtopic"):
        return ""
    return " / ".join(str(info.get(k) or "") for k in ("subject", "topic", "subtopic"))


def session_items(info: Mapping[str, Any]) -> list[tuple[Kind, str, str]]:
    """(kind, ref, title) of what a session's mastery counts for (a `TopicInfoData`; front
    ends pass it from the checkpointed values, which LangGraph hands them untyped)."""
    items: list[tuple[Kind, str, str]] = [
        ("concept", str(c["id"]), str(c["title"])) for c in info.get("concepts") or []
    ]
    if ref := subtopic_ref(info):
        items.append(("subtopic", ref, str(info["subtopic"])))
    return items


def record_history(store: Store, session_id: str, state: SimplifiedState) -> int:
    """A point for each item whose mastery in this session changed (or was never recorded);
    returns how many were added."""
    value = plan_mastery(state.get("study_plan"))
    stamp = now_iso()
    added = 0
    with store.transaction():
        for kind, ref, title in session_items(state.get("topic_info") or {}):
            last = store.query_one(
                "SELECT mastery FROM tutor_mastery_history WHERE session_id = ? AND kind = ?"
                " AND ref = ? ORDER BY id DESC LIMIT 1",
                (session_id, kind, ref),
            )
            if last is not None and abs(float(last[0]) - value) < 1e-9:
                continue
            store.execute(
                "INSERT INTO tutor_mastery_history (session_id, kind, ref, title, mastery,"
                " recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, kind, ref, title, value, stamp),
            )
            added += 1
    return added


def history(store: Store, kind: Kind, ref: str) -> list[MasteryPoint]:
    """Every recorded value of one item, oldest first."""
    rows = store.query(
        "SELECT session_id, mastery, recorded_at FROM tutor_mastery_history"
        " WHERE kind = ? AND ref = ? ORDER BY recorded_at, id",
        (kind, ref),
    )
    return [MasteryPoint(row[0], float(row[1]), row[2]) for row in rows]


def current_time() -> datetime:
    """Now, in UTC (what "days since" counts from; tests pin it)."""
    return datetime.now(UTC)


def days_between(earlier: str, now: datetime) -> float:
    """Days from an ISO time to now (an unreadable time counts as long ago)."""
    try:
        then = datetime.fromisoformat(earlier)
    except ValueError:
        return FORGETTING_DAYS
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return max(0.0, (now - then).total_seconds() / 86400)


def practice_priority(mastery: float, days_since: float) -> float:
    """How due an item is: weakness and staleness, weighted (the module's docstring)."""
    staleness = min(1.0, days_since / FORGETTING_DAYS)
    return round(WEAKNESS_WEIGHT * (1 - mastery) + STALENESS_WEIGHT * staleness, 4)


def tracked(store: Store, *, now: datetime | None = None) -> list[Tracked]:
    """Every practiced concept and subtopic, most due first."""
    now = now or current_time()
    rows = store.query(
        "SELECT kind, ref, title, mastery, recorded_at, session_id FROM tutor_mastery_history"
        " ORDER BY recorded_at, id"
    )
    latest: dict[tuple[Kind, str], tuple[str, float, str]] = {}
    sessions: dict[tuple[Kind, str], set[str]] = {}
    for kind, ref, title, value, when, session in rows:
        latest[(kind, ref)] = (title, float(value), when)
        sessions.setdefault((kind, ref), set()).add(session)
    items = []
    for (kind, ref), (title, value, when) in latest.items():
        days = days_between(when, now)
        items.append(
            Tracked(
                kind,
                ref,
                title,
                value,
                when,
                len(sessions[(kind, ref)]),
                days,
                practice_priority(value, days),
            )
        )
    items.sort(key=lambda t: (-t.priority, t.last_practiced, t.title.casefold()))
    return items


def due(store: Store, limit: int = 5, *, now: datetime | None = None) -> list[Tracked]:
    """The items most due for practice (see the module's docstring)."""
    return tracked(store, now=now)[:limit]


def due_with_history(
    store: Store, limit: int = 3, *, now: datetime | None = None
) -> list[tuple[Tracked, list[float]]]:
    """The items most due, each with its mastery values oldest first (for a trend line)."""
    return [
        (item, [p.mastery for p in history(store, item.kind, item.ref)])
        for item in due(store, limit, now=now)
    ]


def session_progress(
    store: Store, topic_info: TopicInfoData, *, now: datetime | None = None
) -> list[tuple[Tracked, list[float]]]:
    """What a session's mastery counts for (its concepts, its subtopic) that was practiced,
    each with its values across every session, oldest first."""
    wanted = [(kind, ref) for kind, ref, _title in session_items(topic_info)]
    found = {(t.kind, t.ref): t for t in tracked(store, now=now)}
    return [
        (found[key], [p.mastery for p in history(store, *key)]) for key in wanted if key in found
    ]
