"""core.overview: the counts home shows and where each source note stands, read from an indexed
vault and the runs table (the TUI executes no SQL of its own: tests/test_layers.py)."""

from __future__ import annotations

import itertools

import pytest

from core.ingest import index_vault
from core.overview import NoteCounts, SourceStatus, note_counts, source_statuses
from core.settings import Settings
from core.store import Store
from core.store.runs import RunsRepo

SOURCES = {
    "03 - Sources/Ünïcode & «quotes» 🧠.md": "title: Pensar rápido\nprocessed_date: 2026-01-03\n",
    "03 - Sources/思考の技法.md": "title: 思考の技法\n",
    "03 - Sources/[draft] O'Brien; DROP TABLE.md": "title: O'Brien\n",
    "03 - Sources/Zettelkasten.md": "title: Zettelkasten\n",
}
CONCEPTS = ("Práctica de recuperación", "Ζώνη επικείμενης ανάπτυξης")


@pytest.fixture
def store(tmp_path, monkeypatch):
    vault = tmp_path / "vault"
    for rel, frontmatter in SOURCES.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\n{frontmatter}---\n## Highlights\n- Una cita.\n", encoding="utf-8")
    for title in CONCEPTS:
        note = vault / "08 - Ideas" / f"{title}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"---\ntitle: {title}\n---\nUna idea.\n", encoding="utf-8")
    settings = Settings(vault={"path": vault}, data={"directory": tmp_path / "data"})
    ticks = (f"2026-01-02T10:00:{n:02d}.000+00:00" for n in itertools.count())
    monkeypatch.setattr("core.store.runs.now_iso", lambda: next(ticks))  # distinct, in order
    opened = Store(settings.store_path)
    index_vault(settings, opened)
    yield opened
    opened.close()


def test_note_counts(store):
    counts = note_counts(store)
    expected = NoteCounts(kinds={"source": 4, "concept": 2}, concepts=2, unprocessed=3, problems=0)
    assert counts == expected
    assert counts.notes == 6


def test_where_each_source_stands(store):
    runs = RunsRepo(store)
    japanese, obrien, zettel = (
        "03 - Sources/思考の技法.md",
        "03 - Sources/[draft] O'Brien; DROP TABLE.md",
        "03 - Sources/Zettelkasten.md",
    )
    failed = runs.create("extraction", {}, target=japanese, status="failed")
    review = runs.create("extraction", {}, target=japanese, status="awaiting_review")
    runs.create("extraction", {}, target=obrien, status="queued")
    done = runs.create("extraction", {}, target=obrien, status="running")
    runs.set_status(done.id, "done")  # the newest run is over: the note's own state speaks
    running = runs.create("extraction", {}, target=zettel, status="running")
    runs.create("lesson", {}, target=zettel, status="failed")  # another flow: not a source's
    assert failed.id != review.id
    assert source_statuses(store) == [
        SourceStatus(japanese, "思考の技法", "awaiting review", review.id),
        SourceStatus(zettel, "Zettelkasten", "running", running.id),
        SourceStatus(obrien, "O'Brien", "unprocessed", None),
        SourceStatus("03 - Sources/Ünïcode & «quotes» 🧠.md", "Pensar rápido", "processed", None),
    ]


def test_a_newer_failure_wins_over_an_older_review(store):
    runs = RunsRepo(store)
    target = "03 - Sources/Zettelkasten.md"
    runs.create("extraction", {}, target=target, status="awaiting_review")
    failed = runs.create("extraction", {}, target=target, status="failed")
    statuses = {s.path: (s.status, s.run_id) for s in source_statuses(store)}
    assert statuses[target] == ("failed", failed.id)
