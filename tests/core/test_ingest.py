"""Watcher events -> index -> extraction runs queued exactly once, surviving a restart."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from core.ingest import EXTRACTION, Ingest, index_vault, layout_from_settings, start_watching
from core.settings import Settings
from core.store import Store
from core.store.runs import RunsRepo
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.watcher import VaultWatcher

SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "sample_vault"
UNPROCESSED = "03 - Sources/Pensar rápido, pensar despacio.md"


def source(i: int, processed: bool = False) -> str:
    date = "processed_date: 2026-01-01\n" if processed else ""
    return f"---\ntitle: Book {i}\n{date}---\n## Highlights\n- Quote {i}\n"


def wait_until(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture
def settings(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE, vault)
    return Settings(
        vault={"path": vault, "watch_debounce_ms": 200}, data={"directory": tmp_path / "data"}
    )


def test_layout_from_settings(settings):
    layout = layout_from_settings(settings)
    assert layout.concepts == "08 - Ideas" and layout.sources == "03 - Sources"
    assert layout.exclude == (".obsidian/**", ".trash/**")


def test_catch_up_queues_unprocessed_sources_once_and_survives_restart(settings):
    store = Store(settings.store_path)
    result = index_vault(settings, store)
    assert result.added > 20
    index = VaultIndex(store, settings.vault.path, layout_from_settings(settings))
    ingest = Ingest(store, index)
    queued = ingest.catch_up()
    assert [(r.flow, r.target, r.input) for r in queued] == [
        (EXTRACTION, UNPROCESSED, {"source": UNPROCESSED})
    ]
    assert ingest.catch_up() == []
    store.close()
    reopened = Store(settings.store_path)  # a restart: the queued run is still there
    runs = RunsRepo(reopened).list(status="queued", flow=EXTRACTION)
    assert [r.target for r in runs] == [UNPROCESSED]
    assert Ingest(reopened, index).catch_up() == []
    reopened.close()


def test_burst_of_500_new_sources_each_queued_exactly_once(settings):
    store = Store(settings.store_path)
    watcher, ingest, _ = start_watching(settings, store)
    folder = settings.vault.path / "03 - Sources" / "burst"
    try:
        folder.mkdir()
        for i in range(500):
            (folder / f"Book {i}.md").write_text(source(i, processed=(i % 10 == 0)))
        for i in range(0, 500, 7):  # some are saved twice, atomically, while the burst goes on
            tmp = folder / f".Book {i}.md.tmp"
            tmp.write_text(source(i, processed=(i % 10 == 0)) + "- more\n")
            os.replace(tmp, folder / f"Book {i}.md")
        expected = {f"03 - Sources/burst/Book {i}.md" for i in range(500) if i % 10}
        runs = RunsRepo(store)
        assert wait_until(
            lambda: {r.target for r in runs.list(flow=EXTRACTION)} >= expected, timeout=60
        )
        time.sleep(1.0)
    finally:
        watcher.stop()
    targets = [r.target for r in RunsRepo(store).list(flow=EXTRACTION)]
    assert sorted(targets) == sorted(expected | {UNPROCESSED})  # each exactly once
    assert (
        store.query_one("SELECT count(*) FROM sources WHERE path LIKE '03 - Sources/burst/%'")[0]
        == 500
    )
    assert not watcher.errors
    store.close()


def test_processed_sources_and_other_notes_queue_nothing(settings):
    store = Store(settings.store_path)
    watcher, ingest, writer = start_watching(settings, store)
    try:
        before = len(RunsRepo(store).list(flow=EXTRACTION))
        (settings.vault.path / "03 - Sources" / "Done.md").write_text(source(1, processed=True))
        (settings.vault.path / "08 - Ideas" / "Nueva idea.md").write_text("# Nueva idea\n")
        assert wait_until(lambda: len(watcher.recent) >= 2, timeout=10)
        # Marking the queued source processed through the writer is noema's own write.
        note = writer.read(UNPROCESSED)
        writer.set_frontmatter(
            UNPROCESSED, {"processed_date": "2026-11-22T00:00:00"}, expected_hash=note.hash
        )
        time.sleep(1.0)
    finally:
        watcher.stop()
    assert len(RunsRepo(store).list(flow=EXTRACTION)) == before
    assert {e.path for e in watcher.recent} == {"03 - Sources/Done.md", "08 - Ideas/Nueva idea.md"}
    store.close()


def test_a_changed_unprocessed_source_after_a_failed_run_is_queued_again(settings, tmp_path):
    store = Store(settings.store_path)
    index_vault(settings, store)
    index = VaultIndex(store, settings.vault.path, VaultLayout())
    ingest = Ingest(store, index)
    (run,) = ingest.catch_up()
    RunsRepo(store).set_status(run.id, "failed", error="model down")
    watcher = VaultWatcher(settings.vault.path, ingest.handle, VaultLayout(), debounce_s=0.2)
    watcher.start()
    try:
        path = settings.vault.path / UNPROCESSED
        path.write_text(path.read_text() + "- Otra cita nueva.\n")
        assert wait_until(lambda: len(ingest.queued) == 2, timeout=10)
    finally:
        watcher.stop()
    assert [r.status for r in RunsRepo(store).list(flow=EXTRACTION)].count("queued") == 1
    store.close()


def test_a_queued_run_follows_its_source_when_renamed(settings):
    store = Store(settings.store_path)
    watcher, ingest, _ = start_watching(settings, store)
    try:
        (run,) = RunsRepo(store).list(flow=EXTRACTION)
        new = "03 - Sources/Kahneman.md"
        os.rename(settings.vault.path / UNPROCESSED, settings.vault.path / new)
        assert wait_until(lambda: RunsRepo(store).get(run.id).target == new, timeout=10)
        time.sleep(1.0)
    finally:
        watcher.stop()
    runs = RunsRepo(store).list(flow=EXTRACTION)
    assert [(r.id, r.target, r.input) for r in runs] == [(run.id, new, {"source": new})]
    store.close()
