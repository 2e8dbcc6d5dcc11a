"""Mastery over time: a point at each change, across sessions, on both stores; what is due."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.flows.tutor.progress import due, history, practice_priority, tracked
from core.flows.tutor.sessions import record_mastery
from core.settings import Settings
from core.store import Store, open_store
from tests.flows.tutor.scripted import TutorScript
from tests.flows.tutor.test_plan import make_plan

ZDP = {"id": "c-zdp", "title": "Zona de desarrollo próximo 🧠"}
MEMORY = {"subject": "Psicología", "topic": "Memoria", "subtopic": "Práctica de recuperación"}


def session_state(*statuses: str, concepts=(ZDP,), curriculum=MEMORY) -> dict:
    return {
        "topic_info": {"title": "t", "concepts": list(concepts), **curriculum},
        "study_plan": make_plan(*statuses),
    }


@pytest.fixture
def store(tmp_path: Path, store_backend: dict):
    opened = open_store(Settings(data={"directory": tmp_path / "data"}, store=store_backend))
    yield opened
    opened.close()


def test_each_change_is_a_point_and_sessions_add_up(store) -> None:
    record_mastery(store, "s1", session_state("pending", "pending"))
    record_mastery(store, "s1", session_state("pending", "pending"))  # no change: no point
    record_mastery(store, "s1", session_state("completed", "pending"))
    record_mastery(store, "s2", session_state("completed", "completed"))
    points = history(store, "concept", "c-zdp")
    assert [(p.session_id, p.mastery) for p in points] == [("s1", 0.0), ("s1", 0.5), ("s2", 1.0)]
    subtopic = history(store, "subtopic", "Psicología / Memoria / Práctica de recuperación")
    assert [p.mastery for p in subtopic] == [0.0, 0.5, 1.0]
    items = {(t.kind, t.title): t for t in tracked(store)}
    assert items[("concept", "Zona de desarrollo próximo 🧠")].sessions == 2
    assert items[("subtopic", "Práctica de recuperación")].mastery == 1.0


def test_a_concept_session_has_no_subtopic(store) -> None:
    record_mastery(store, "s1", session_state("completed", curriculum={"subtopic": ""}))
    assert [(t.kind, t.ref) for t in tracked(store)] == [("concept", "c-zdp")]


def test_due_ranks_weak_before_strong_and_stale_before_fresh(store) -> None:
    weak = {"id": "c-weak", "title": "Carga cognitiva"}
    strong = {"id": "c-strong", "title": "Metacognición"}
    record_mastery(store, "s1", session_state("pending", "pending", concepts=[weak], curriculum={}))
    record_mastery(store, "s2", session_state("completed", concepts=[strong], curriculum={}))
    assert [t.ref for t in due(store, 5)] == ["c-weak", "c-strong"]
    # a month without practice: the strong one is stale (0.4), still below the weak (1.0)
    month = datetime.now(UTC) + timedelta(days=30)
    ranked = due(store, 1, now=month)
    assert [t.ref for t in ranked] == ["c-weak"] and ranked[0].priority == 1.0
    assert ranked[0].days_since > 29


def test_priority_weighs_weakness_and_staleness() -> None:
    assert practice_priority(0.3, 1) == round(0.6 * 0.7 + 0.4 / 14, 4)
    assert practice_priority(0.9, 7) == round(0.6 * 0.1 + 0.4 * 0.5, 4)
    assert practice_priority(1.0, 100) == 0.4  # staleness is capped


def test_the_migration_turns_earlier_rows_into_first_points(tmp_path: Path) -> None:
    """A store of the version before (only each session's latest value) keeps it as history."""
    import sqlite3

    from core.store.db import migrations

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for version, _name, sql in migrations():
        if version < 10:
            conn.executescript(sql)
            conn.execute(f"PRAGMA user_version={version}")
    conn.execute(
        "INSERT INTO tutor_sessions (id, title, subject, topic, subtopic, status, mastery, turns,"
        " created_at, updated_at) VALUES ('s0', 'Old', 'Math', 'Numbers', 'Fractions', 'active',"
        " 0.25, 3, '2026-01-01T00:00:00+00:00', '2026-01-01T01:00:00+00:00')"
    )
    conn.execute(
        "INSERT INTO tutor_mastery VALUES ('s0', 'c1', 'ZDP', 0.25, '2026-01-01T01:00:00')"
    )
    conn.commit()
    conn.close()
    store = Store(path)
    try:
        assert [(p.session_id, p.mastery) for p in history(store, "concept", "c1")] == [
            ("s0", 0.25)
        ]
        assert history(store, "subtopic", "Math / Numbers / Fractions")[0].mastery == 0.25
    finally:
        store.close()


async def test_the_tutor_records_a_point_at_each_evaluation(tutor) -> None:
    async with tutor(TutorScript(["right", "partial", "wrong"])) as t:
        await t.turn()
        for answer in ("1/2", "3/4", "no idea"):
            await t.turn(answer)
        points = history(t.services.store, "subtopic", "Math / Numbers / Fractions")
        # right completes step 1 (1/3), partial half-completes step 2 (1.5/3), wrong stays
        # at 1 of 2 correct on step 2 (1.25/3)
        assert [p.mastery for p in points] == [0.3333, 0.5, round(1.25 / 3, 4)]
        assert {p.session_id for p in points} == {t.session_id}
