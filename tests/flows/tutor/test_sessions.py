"""Session rows, mastery per concept across sessions, and what is due for practice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.flows.tutor.sessions import (
    concept_mastery,
    due_for_practice,
    find_session,
    list_sessions,
    record_mastery,
    record_session,
)
from core.settings import load_settings
from core.settings.writer import save_user_settings
from core.store import Store
from tests.flows.tutor.test_plan import make_plan


def state(title: str, *statuses: str, concepts=(), outcome: str = "") -> dict:
    return {
        "topic_info": {
            "title": title,
            "source": "curriculum",
            "concepts": [{"id": cid, "title": cid.upper()} for cid in concepts],
        },
        "study_plan": make_plan(*statuses),
        "conversation": [{"role": "student"}, {"role": "tutor"}, {"role": "student"}],
        "outcome": outcome,
        "created_at": "2026-01-01T00:00:00+00:00",
    }


def test_sessions_are_recorded_and_listed(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    record_session(store, "abc123", state("Fractions", "completed", "pending"))
    record_session(store, "abd999", state("Decimals", "pending", "pending"))
    record_session(
        store, "abc123", state("Fractions", "completed", "completed", outcome="completed")
    )
    rows = {row.id: row for row in list_sessions(store)}
    assert rows["abc123"].status == "completed" and rows["abc123"].mastery == 1.0
    assert (rows["abc123"].steps_completed, rows["abc123"].steps_total, rows["abc123"].turns) == (
        2,
        2,
        2,
    )
    assert rows["abd999"].status == "active"
    assert find_session(store, "abc").id == "abc123"
    with pytest.raises(KeyError):
        find_session(store, "ab")
    with pytest.raises(KeyError):
        find_session(store, "zz")


def test_due_for_practice_ranks_weak_and_stale_first(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    record_mastery(store, "s1", state("A", "completed", "completed", concepts=["strong"]))
    record_mastery(store, "s2", state("B", "pending", "pending", concepts=["weak"]))
    record_mastery(store, "s3", state("C", "completed", "pending", concepts=["half"]))
    due = due_for_practice(store, 10)
    assert [d.concept_id for d in due] == ["weak", "half", "strong"]
    assert due[0].mastery == 0.0 and due[-1].mastery == 1.0
    # a later session on the same concept replaces its mastery
    record_mastery(store, "s4", state("B again", "completed", "completed", concepts=["weak"]))
    after = due_for_practice(store, 10)
    assert [d.concept_id for d in after] == ["half", "strong", "weak"]
    assert concept_mastery(store)["weak"][0] == 1.0
    # a month later everything is stale: mastery still orders them
    later = datetime.now(UTC) + timedelta(days=30)
    ranked = due_for_practice(store, 2, now=later)
    assert len(ranked) == 2 and ranked[0].concept_id == "half"
    assert ranked[0].days_since > 29


def test_learner_profile_is_saved_keeping_other_keys(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[models]\nmodel = "openai/x"\n\n[flows.tutor]\nmax_replans = 2\n')
    save_user_settings(
        path, {"flows": {"tutor": {"learner": {"name": "Ana", "interests": ["chess"]}}}}
    )
    settings = load_settings(path)
    assert settings.models.model == "openai/x"
    assert settings.flows.tutor.max_replans == 2
    assert settings.flows.tutor.learner.name == "Ana"
    assert settings.flows.tutor.learner.interests == ["chess"]
    with pytest.raises(Exception, match="invalid"):
        save_user_settings(path, {"flows": {"tutor": {"max_replans": 99}}})
    assert load_settings(path).flows.tutor.max_replans == 2
