"""Incremental sync of the vault into the index tables (migrations 0002, 0008).

Changed files are found by mtime+size, then confirmed by content hash; deleted and renamed
files are handled; the whole sync is one transaction with batched inserts. Every link is
stored with the file it resolves to (`vault.resolve`). Nothing outside the vault is read
(`vault.scan`); what was skipped, and why, is in the result. Only concepts whose embedded
text changed are re-embedded.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Coroutine, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vault.containment import contained
from vault.db import Db, Handle, as_db
from vault.embedding import Embedder, embed_pending
from vault.index_links import (
    name_keys,
    re_resolve,
    resolve_rows,
    resolver_from_db,
    sync_files_table,
)
from vault.index_rows import NoteRows, build_rows, concept_id
from vault.layout import VaultLayout
from vault.note import NoteUnreadable, content_hash, parse_note
from vault.resolve import LinkResolver
from vault.scan import VaultScan, scan_vault
from vault.sync_result import SyncResult, count_changes

Progress = Callable[[int, int, str], None]
"""progress(done, total, path) while files are read."""


_DELETE_BY_PATH = (
    "DELETE FROM links WHERE source_path=?",
    "DELETE FROM quotes WHERE source_path=?",
    "DELETE FROM sources WHERE path=?",
    "DELETE FROM vault_warnings WHERE path=?",
    "DELETE FROM notes WHERE path=?",
)


class VaultIndex:
    """The index of one vault in one store (a core Store or a sqlite3 connection)."""

    def __init__(
        self,
        store: Db | Handle,
        root: Path,
        layout: VaultLayout | None = None,
        *,
        embed: Embedder | None = None,
        embed_model: str = "",
    ) -> None:
        self.db: Db = as_db(store)
        self.root = Path(root)
        self.layout = layout or VaultLayout()
        self.embed = embed
        self.embed_model = embed_model
        self._resolver: LinkResolver | None = None
        """Every file of the vault, kept in step by each sync (built on first use)."""

    def resolver(self) -> LinkResolver:
        """How links resolve in the vault as last indexed."""
        if self._resolver is None:
            self._resolver = resolver_from_db(self.db)
        return self._resolver

    # -- public --------------------------------------------------------------------------

    def sync(self, progress: Progress | None = None) -> SyncResult:
        """Bring the index up to date with the vault (and embeddings, when an embedder is set).

        Call `sync_async` instead from inside a running event loop.
        """
        result = self.sync_files(progress)
        embed = self.embed
        if embed is not None:
            self._run_embed(result, lambda: embed_pending(self.db, embed, self.embed_model))
        return result

    async def sync_async(self, progress: Progress | None = None) -> SyncResult:
        result = await asyncio.to_thread(self.sync_files, progress)
        if self.embed is not None:
            start = time.perf_counter()
            try:
                result.embedded = await embed_pending(self.db, self.embed, self.embed_model)
            except Exception as exc:  # the index stays usable with full-text search
                result.embedding_error = f"{type(exc).__name__}: {exc}"
            result.duration_s += time.perf_counter() - start
        return result

    def sync_files(self, progress: Progress | None = None) -> SyncResult:
        """Index every changed note of the vault; no embedding."""
        start = time.perf_counter()
        scan = scan_vault(self.root, self.layout)
        on_disk = scan.notes
        known = {
            row[0]: (row[1], row[2], row[3])
            for row in self.db.query("SELECT path, hash, mtime_ns, size FROM notes")
        }
        result = SyncResult(skipped=scan.skipped, excluded=dict(scan.excluded))
        result.attachments = sum(1 for kind in scan.files.values() if kind == "attachment")
        deleted = [path for path in known if path not in on_disk]
        self._resolver = LinkResolver([*on_disk, *scan.files])
        self._apply(on_disk, known, deleted, result, progress, scan)
        stale = [
            (r[0],) for r in self.db.query("SELECT path FROM vault_warnings") if r[0] not in on_disk
        ]
        self.db.executemany("DELETE FROM vault_warnings WHERE path=?", stale)
        result.duration_s = time.perf_counter() - start
        return result

    def index_paths(self, paths: Iterable[str]) -> SyncResult:
        """Re-index only these paths (created, changed, deleted or moved), e.g. from the watcher."""
        start = time.perf_counter()
        on_disk: dict[str, tuple[int, int]] = {}
        gone: list[str] = []
        for rel in dict.fromkeys(paths):
            full = contained(self.root, rel)
            if (
                full is not None
                and rel.endswith(".md")
                and not self.layout.is_excluded(rel)
                and full.is_file()
            ):
                st = full.stat()
                on_disk[rel] = (st.st_mtime_ns, st.st_size)
            else:
                gone.append(rel)
        known = {}
        for rel in [*on_disk, *gone]:
            row = self.db.query_one("SELECT hash, mtime_ns, size FROM notes WHERE path=?", (rel,))
            if row is not None:
                known[rel] = (row[0], row[1], row[2])
        result = SyncResult()
        self._apply(on_disk, known, [p for p in gone if p in known], result, None)
        result.duration_s = time.perf_counter() - start
        return result

    async def embed_changed(self) -> int:
        """Embed the concepts whose text changed since they were last embedded."""
        if self.embed is None:
            return 0
        return await embed_pending(self.db, self.embed, self.embed_model)

    # -- internals -----------------------------------------------------------------------

    def _run_embed(
        self, result: SyncResult, make: Callable[[], Coroutine[object, None, int]]
    ) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("VaultIndex.sync() inside an event loop: use sync_async()")
        start = time.perf_counter()
        try:
            result.embedded = asyncio.run(make())
        except Exception as exc:  # the index stays usable with full-text search
            result.embedding_error = f"{type(exc).__name__}: {exc}"
        result.duration_s += time.perf_counter() - start

    def _apply(
        self,
        on_disk: dict[str, tuple[int, int]],
        known: dict[str, tuple[str, int, int]],
        deleted: list[str],
        result: SyncResult,
        progress: Progress | None,
        scan: VaultScan | None = None,
    ) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        fresh: list[NoteRows] = []
        touched: list[tuple[int, int, str]] = []
        warnings: list[tuple[str, str, str]] = []
        total, done = len(on_disk), 0
        for rel, (mtime, size) in on_disk.items():
            done += 1
            old = known.get(rel)
            if old is not None and old[1] == mtime and old[2] == size:
                result.unchanged += 1
                continue
            if progress is not None:
                progress(done, total, rel)
            rows = self._read(rel, mtime, size, stamp, old, warnings, result)
            if isinstance(rows, str):  # "same": only the mtime changed
                touched.append((mtime, size, rel))
            elif rows is None:
                if old is not None:
                    deleted.append(rel)  # unreadable now: its old rows must go
            else:
                fresh.append(rows)
        if progress is not None:
            progress(total, total, "")
        count_changes(fresh, known, deleted, result)
        try:
            self._commit(fresh, known, deleted, touched, warnings, scan, result)
        except BaseException:
            self._resolver = None  # rebuilt from the store on next use
            raise

    def _commit(
        self,
        fresh: list[NoteRows],
        known: dict[str, tuple[str, int, int]],
        deleted: list[str],
        touched: list[tuple[int, int, str]],
        warnings: list[tuple[str, str, str]],
        scan: VaultScan | None,
        result: SyncResult,
    ) -> None:
        """Everything a sync changes in the store, in one transaction."""
        resolver = self.resolver()
        with self.db.transaction():
            self._delete([rows.note[0] for rows in fresh if rows.note[0] in known] + deleted)
            self.db.executemany(
                "DELETE FROM vault_warnings WHERE path=?", [(r.note[0],) for r in fresh]
            )
            moved = self._files(scan, deleted, fresh, known, warnings, resolver)
            for rows in fresh:
                rows.links = resolve_rows(rows.links, resolver)
            self._fix_duplicate_ids(fresh, result)
            self._insert(fresh)
            if known or scan is None:  # (a first full sync has no older link to redo)
                re_resolve(self.db, resolver, name_keys(moved), {r.note[0] for r in fresh})
            self.db.executemany("UPDATE notes SET mtime_ns=?, size=? WHERE path=?", touched)
            self.db.executemany(
                "INSERT OR REPLACE INTO vault_warnings (path, message, created_at) VALUES (?, ?, ?)",
                warnings,
            )

    def _files(
        self,
        scan: VaultScan | None,
        deleted: list[str],
        fresh: list[NoteRows],
        known: dict[str, tuple[str, int, int]],
        warnings: list[tuple[str, str, str]],
        resolver: LinkResolver,
    ) -> set[str]:
        """Bring the vault's other files and the resolver up to date; the paths that appeared
        or went (whose names' links must be resolved again)."""
        moved = {p for p in deleted if p not in {r.note[0] for r in fresh}}
        moved |= {r.note[0] for r in fresh if r.note[0] not in known}
        if scan is not None:
            unread = {w[0]: "ignored" for w in warnings if w[0] in scan.notes}
            unread = {p: k for p, k in unread.items() if p not in {r.note[0] for r in fresh}}
            moved |= sync_files_table(self.db, {**scan.files, **unread})
            return moved
        for path in moved:
            if path in deleted:
                resolver.remove(path)
            elif path not in resolver:
                resolver.add(path)
        for rows in fresh:
            if rows.note[0] not in resolver:
                resolver.add(rows.note[0])
        return moved

    def _read(
        self,
        rel: str,
        mtime: int,
        size: int,
        stamp: str,
        old: tuple[str, int, int] | None,
        warnings: list[tuple[str, str, str]],
        result: SyncResult,
    ) -> NoteRows | str | None:
        """The rows of a changed note; "same" if only its mtime changed; None if skipped."""
        if size > self.layout.max_note_bytes:
            message = (
                f"{rel}: {size} bytes is over the {self.layout.max_note_bytes}-byte limit, skipped"
            )
            result.warnings.append(message)
            warnings.append((rel, message, stamp))
            return None
        full = os.path.join(self.root, rel)
        if os.path.islink(full) and contained(self.root, rel) is None:
            message = f"{rel}: leads outside the vault (symlink), not read"
            result.warnings.append(message)
            warnings.append((rel, message, stamp))
            return None
        try:
            with open(full, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            result.warnings.append(f"{rel}: cannot read ({exc})")
            return None
        if old is not None and old[0] == content_hash(data):
            result.unchanged += 1
            return "same"
        try:
            note = parse_note(rel, data)
        except NoteUnreadable as exc:
            result.warnings.append(str(exc))
            warnings.append((rel, str(exc), stamp))
            return None
        for message in note.warnings:
            result.warnings.append(message)
            warnings.append((rel, message, stamp))
        return build_rows(note, self.layout.kind_of(rel), mtime, size, stamp)

    def _delete(self, paths: list[str]) -> None:
        if not paths:
            return
        params = [(p,) for p in paths]
        for row in (
            self.db.query(
                f"SELECT id, entity_id FROM concepts WHERE path IN ({','.join('?' * len(paths))})",
                paths,
            )
            if len(paths) < 900
            else self._concepts_of(paths)
        ):
            self.db.execute("DELETE FROM concepts_fts WHERE rowid=?", (row[0],))
            self.db.execute("DELETE FROM concept_relations WHERE source_id=?", (row[1],))
            self.db.execute("DELETE FROM quote_concepts WHERE concept_id=?", (row[1],))
            self.db.execute("DELETE FROM concepts WHERE id=?", (row[0],))
        for sql in _DELETE_BY_PATH:
            self.db.executemany(sql, params)

    def _concepts_of(self, paths: list[str]) -> list[Any]:
        wanted = set(paths)
        return [
            r for r in self.db.query("SELECT id, entity_id, path FROM concepts") if r[2] in wanted
        ]

    def _fix_duplicate_ids(self, fresh: list[NoteRows], result: SyncResult) -> None:
        """Two notes with one entity_id (a copied note): the later one gets a path-derived id."""
        concepts = [rows for rows in fresh if rows.concept is not None]
        if not concepts:
            return
        ids = [rows.concept[0] for rows in concepts if rows.concept is not None]
        if len(ids) < 500:  # the watcher's case: look up only these ids
            sql = f"SELECT entity_id, path FROM concepts WHERE entity_id IN ({','.join('?' * len(ids))})"
            found = self.db.query(sql, ids)
        else:
            found = self.db.query("SELECT entity_id, path FROM concepts")
        taken = {row[0]: row[1] for row in found}
        for rows in concepts:
            if rows.concept is None:
                continue
            entity_id, path = rows.concept[0], rows.concept[1]
            if taken.get(entity_id, path) != path:
                message = f"{path}: entity_id {entity_id} is also used by {taken[entity_id]}"
                result.warnings.append(message)
                note = parse_note(path, b"")
                new_id = concept_id(note)
                rows.concept = (new_id, *rows.concept[1:])
                rows.relations = [(new_id, t, target) for _, t, target in rows.relations]
                rows.quote_concepts = [(new_id, s, q) for _, s, q in rows.quote_concepts]
                entity_id = new_id
            taken[entity_id] = path

    def _insert(self, fresh: list[NoteRows]) -> None:
        db = self.db
        db.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [r.note for r in fresh])
        db.executemany(
            "INSERT INTO links (source_path, target, target_name, subpath, alias, kind, embed,"
            " in_frontmatter, resolved_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [x for r in fresh for x in r.links],
        )
        concepts = [r for r in fresh if r.concept is not None]
        db.executemany(
            "INSERT INTO concepts (entity_id, path, title, aliases_json, short_summary, summary,"
            " language, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [r.concept for r in fresh if r.concept is not None],
        )
        db.executemany(
            "INSERT INTO concepts_fts (rowid, title, aliases, short_summary, summary)"
            " SELECT id, ?, ?, ?, ? FROM concepts WHERE entity_id=?",
            [
                (*r.fts, r.concept[0])
                for r in concepts
                if r.fts is not None and r.concept is not None
            ],
        )
        db.executemany(
            "INSERT OR IGNORE INTO concept_relations VALUES (?, ?, ?)",
            [x for r in concepts for x in r.relations],
        )
        db.executemany(
            "INSERT OR IGNORE INTO quote_concepts VALUES (?, ?, ?)",
            [x for r in concepts for x in r.quote_concepts],
        )
        db.executemany(
            "INSERT INTO sources VALUES (?, ?, ?, ?, ?)", [r.source for r in fresh if r.source]
        )
        db.executemany(
            "INSERT OR IGNORE INTO quotes (source_path, id, position, text, block_id, location)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [x for r in fresh for x in r.quotes],
        )


def sync(
    store: Db | Handle,
    root: Path,
    layout: VaultLayout | None = None,
    *,
    progress: Progress | None = None,
    embed: Embedder | None = None,
    embed_model: str = "",
) -> SyncResult:
    """Sync the vault at `root` into `store` (what `noema index` calls)."""
    return VaultIndex(store, root, layout, embed=embed, embed_model=embed_model).sync(progress)
