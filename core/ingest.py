"""From the vault to the runs table: index what changed, queue extraction of new sources.

The watcher (vault.watcher) calls `Ingest.handle` with settled events; a new or changed
source note that is not processed queues one extraction run (`enqueue_once`), persisted in
the store, so a restart loses nothing: `Ingest.catch_up` queues whatever was missed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core.settings import Settings
from core.store import Store
from core.store.runs import RunRecord, RunsRepo
from vault.embedding import Embedder
from vault.index import Progress, VaultIndex
from vault.layout import VaultLayout
from vault.obsidian import ObsidianConfig, read_obsidian_config
from vault.sync_result import SyncResult
from vault.writer import VaultWriter

if TYPE_CHECKING:  # watchdog is imported when watching starts, not by `noema doctor`
    from vault.watcher import VaultEvent, VaultWatcher

EXTRACTION = "extraction"


def obsidian_config(settings: Settings) -> ObsidianConfig:
    """The vault's own Obsidian settings, or Obsidian's defaults when noema is told not to
    follow them (`vault.obsidian_settings = false`) or no vault is set."""
    if settings.vault.path is None or not settings.vault.obsidian_settings:
        return ObsidianConfig()
    return read_obsidian_config(settings.vault.path)


def layout_from_settings(settings: Settings) -> VaultLayout:
    """The vault layout the settings describe, the vault's Obsidian settings filling in what
    noema's settings leave to the vault."""
    v = settings.vault
    f = v.folders
    vault = obsidian_config(settings)
    return VaultLayout(
        sources=f.sources,
        concepts=f.concepts,
        lessons=f.lessons,
        curriculum=f.curriculum,
        tutoring=f.tutoring,
        archive=f.archive,
        templates=f.templates if f.templates is not None else vault.templates_folder or "Templates",
        exclude=tuple(v.exclude),
        max_note_bytes=v.max_note_bytes,
        attachments=(f.attachments if f.attachments is not None else vault.attachments_folder),
        ignore=vault.ignore_filters,
        markdown_links=(
            vault.use_markdown_links if v.link_style == "vault" else v.link_style == "markdown"
        ),
        link_format=vault.new_link_format if v.link_format == "vault" else v.link_format,
    )


def vault_problems(store: Store) -> list[tuple[str, str]]:
    """(path, what is wrong) of every note the index could not take as it is: empty, with
    malformed frontmatter, binary, too large, leading out of the vault. Such notes are kept
    out of the workflows (no concept, no source to extract) until they are fixed."""
    rows = store.query("SELECT path, message FROM vault_warnings ORDER BY path")
    return [(row[0], row[1]) for row in rows]


def problem_count(store: Store) -> int:
    """How many notes `vault_problems` lists (the home screen shows it)."""
    return int(store.query_one("SELECT COUNT(DISTINCT path) FROM vault_warnings")[0])


def vault_root(settings: Settings) -> Path:
    if settings.vault.path is None:
        raise ValueError("no vault configured: set vault.path (or run `noema demo`)")
    return settings.vault.path


def open_index(
    settings: Settings, store: Store, embed: Embedder | None = None, embed_model: str = ""
) -> VaultIndex:
    """The index of the configured vault in the store."""
    return VaultIndex(
        store,
        vault_root(settings),
        layout_from_settings(settings),
        embed=embed,
        embed_model=embed_model,
    )


def index_vault(
    settings: Settings,
    store: Store,
    progress: Progress | None = None,
    embed: Embedder | None = None,
    embed_model: str = "",
) -> SyncResult:
    """What `noema index` runs: a full incremental sync (progress(done, total, path))."""
    return open_index(settings, store, embed, embed_model).sync(progress)


class Ingest:
    """Keeps the index current from watcher events and queues extraction runs."""

    def __init__(self, store: Store, index: VaultIndex) -> None:
        self.store = store
        self.index = index
        self.runs = RunsRepo(store)
        self.queued: list[RunRecord] = []
        self._lock = threading.Lock()
        self.listeners: list[Callable[[list[VaultEvent], list[RunRecord]], None]] = []
        """Called after each batch (the TUI posts a message from here)."""

    def handle(self, events: list[VaultEvent]) -> list[RunRecord]:
        """Re-index the paths of these events, then queue extraction of unprocessed sources."""
        paths: list[str] = []
        for event in events:
            paths.append(event.path)
            if event.old_path:
                paths.append(event.old_path)
        with self._lock:
            self.index.index_paths(paths)
            for event in events:
                if event.kind == "moved" and event.old_path:
                    self._follow_move(event.old_path, event.path)
            candidates = [e.path for e in events if e.kind in ("created", "modified", "moved")]
            queued = self._queue(candidates)
        for listener in self.listeners:
            listener(events, queued)
        return queued

    def catch_up(self) -> list[RunRecord]:
        """Queue every indexed source without processed_date (at start-up, after a sync)."""
        rows = self.store.query(
            "SELECT path FROM sources WHERE processed_date IS NULL ORDER BY path"
        )
        with self._lock:
            return self._queue([row[0] for row in rows])

    def _follow_move(self, old: str, new: str) -> None:
        """A queued (not yet started) extraction follows its source note to its new path."""
        self.store.execute(
            "UPDATE runs SET target=?, input_json=? WHERE flow=? AND target=? AND status='queued'",
            (new, json.dumps({"source": new}), EXTRACTION, old),
        )

    def _queue(self, paths: list[str]) -> list[RunRecord]:
        if not paths:
            return []
        marks = ",".join("?" * len(paths))
        unprocessed = {
            row[0]
            for row in self.store.query(
                f"SELECT path FROM sources WHERE processed_date IS NULL AND path IN ({marks})",
                paths,
            )
        }
        queued = []
        for rel in dict.fromkeys(paths):
            if rel in unprocessed:
                run = self.runs.enqueue_once(EXTRACTION, {"source": rel}, target=rel)
                if run is not None:
                    queued.append(run)
        self.queued.extend(queued)
        return queued


def start_watching(
    settings: Settings, store: Store, index: VaultIndex | None = None
) -> tuple[VaultWatcher, Ingest, VaultWriter]:
    """Sync, catch up, and start the watcher; returns (watcher, ingest, writer).

    The writer reports its writes to the watcher so noema's own writes are not events.
    """
    from vault.watcher import VaultWatcher

    index = index or open_index(settings, store)
    index.sync_files()
    ingest = Ingest(store, index)
    ingest.catch_up()
    known = {row[0]: row[1] for row in store.query("SELECT path, hash FROM notes")}
    watcher = VaultWatcher(
        index.root,
        ingest.handle,
        index.layout,
        debounce_s=settings.vault.watch_debounce_ms / 1000,
        polling=settings.vault.watch_polling,
        known_hashes=known,
    )
    writer = VaultWriter(index.root, index.layout, on_write=watcher.expect_write)
    watcher.start()
    return watcher, ingest, writer
