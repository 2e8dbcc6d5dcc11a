"""The store: one connection owner per process, versioned forward migrations.

The store is an index of the vault plus what has no home in a note (runs, traces,
embeddings, proposals, sessions). Its SQLite file lives in the data directory, never inside
the vault. With a shared store (`[store] backend = "postgres"`, core.store.open) the shared
tables (core.store.tables) live in PostgreSQL instead and every statement goes to the side
that holds its tables; callers see one store either way.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.store.tables import Layout, layout_of, route

if TYPE_CHECKING:
    from core.store.postgres import Params, PostgresStore

MIGRATIONS_PACKAGE = "core.store.migrations"


class StoreError(Exception):
    """The store cannot be opened or migrated."""


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every migration file `NNNN_name.sql`, in version order."""
    found = []
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [version for version, _, _ in found]
    if len(set(versions)) != len(versions):
        raise StoreError(f"two migrations share a version: {versions}")
    return found


def layout() -> Layout:
    """Which tables are shared and which local, for the migrations this noema knows."""
    return layout_of(tuple(sql for _, _, sql in migrations()))


class Store:
    """Owns the process's connection to the SQLite store (and to the shared store, if any).

    Calls are serialized by a lock so the TUI's workers and the runtime's event loop can
    share it; every statement is short (indexed look-ups, small writes).
    """

    def __init__(self, path: Path | str, *, shared: PostgresStore | None = None) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                str(path), check_same_thread=False, isolation_level=None, timeout=30
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store at {path}: {exc}") from exc
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self.shared = shared
        """The shared store in PostgreSQL, or None: every table in the SQLite file."""
        self._layout = layout() if shared is not None else None
        self._tx: set[str] | None = None
        self.migrate()

    @property
    def version(self) -> int:
        """The schema version (PRAGMA user_version)."""
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    @property
    def backend(self) -> str:
        """`sqlite` or `postgres` (where the shared tables are)."""
        return "sqlite" if self.shared is None else "postgres"

    def migrate(self) -> None:
        """Apply every migration newer than the store's version, each in its own transaction
        (and the shared statements of each to the shared store)."""
        with self._lock:
            current = self.version
            known = migrations()
            latest = known[-1][0] if known else 0
            if current > latest:
                raise StoreError(
                    f"the store at {self.path} has schema version {current}, newer than this "
                    f"noema knows ({latest}); upgrade noema or point data.directory elsewhere"
                )
            for version, name, sql in known:
                if version <= current:
                    continue
                try:
                    self._conn.executescript(
                        f"BEGIN;\n{sql}\nPRAGMA user_version={version};\nCOMMIT;"
                    )
                except sqlite3.Error as exc:
                    self._conn.execute("ROLLBACK") if self._conn.in_transaction else None
                    raise StoreError(f"migration {name} failed: {exc}") from exc
            if self.shared is not None:
                self._migrate_shared(known)

    def _migrate_shared(self, known: list[tuple[int, str, str]]) -> None:
        from core.store.shared_schema import SharedSchemaError, migrate_shared

        assert self.shared is not None and self._layout is not None
        try:
            migrate_shared(self.shared, known, self._layout)
        except SharedSchemaError as exc:
            raise StoreError(str(exc)) from exc
        self.shared.load_schema(self._layout.shared)

    def _side(self, sql: str) -> str:
        """`shared` for a statement on shared tables (with a shared store), else `local`."""
        if self._layout is None:
            return "local"
        side = route(sql, self._layout)
        if self._tx is not None and side not in self._tx:
            self._tx.add(side)
            if side == "shared":
                self.shared.begin()  # type: ignore[union-attr]
            else:
                self._conn.execute("BEGIN IMMEDIATE")
        return side

    def execute(self, sql: str, params: Params = ()) -> Any:
        """Run one statement (autocommit unless inside `transaction()`)."""
        with self._lock:
            if self._side(sql) == "shared":
                return self.shared.execute(sql, params)  # type: ignore[union-attr]
            return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Params]) -> Any:
        """Run one statement for many rows."""
        with self._lock:
            if self._side(sql) == "shared":
                return self.shared.executemany(sql, rows)  # type: ignore[union-attr]
            return self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Params = ()) -> list[Any]:
        """All rows of a query."""
        with self._lock:
            return list(self.execute(sql, params).fetchall())

    def query_one(self, sql: str, params: Params = ()) -> Any:
        """The first row of a query, or None."""
        with self._lock:
            return self.execute(sql, params).fetchone()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """A write transaction: everything inside commits together or not at all.

        Yields the store (`conn.execute(...)` inside works as before). With a shared store
        each side begins at its first statement; the shared side commits first: the local
        tables are an index of the vault, rebuilt from it, while the shared rows are the
        record (an extraction's plan is finished by `noema repair` from them).
        """
        with self._lock:
            if self._tx is not None:  # nested: part of the outer transaction
                yield self
                return
            self._tx = set() if self._layout is not None else {"local"}
            if self._layout is None:
                self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                self._finish("ROLLBACK")
                raise
            else:
                self._finish("COMMIT")

    def _finish(self, word: str) -> None:
        sides, self._tx = self._tx or set(), None
        try:
            if "shared" in sides:
                if word == "COMMIT":
                    self.shared.commit()  # type: ignore[union-attr]
                else:
                    self.shared.rollback()  # type: ignore[union-attr]
        except BaseException:
            if "local" in sides:
                self._conn.execute("ROLLBACK")
            raise
        if "local" in sides:
            self._conn.execute(word)

    def close(self) -> None:
        """Close the connection(s)."""
        with self._lock:
            self._conn.close()
            if self.shared is not None:
                self.shared.close()
