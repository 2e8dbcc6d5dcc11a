"""The SQLite store: one connection owner per process, WAL, versioned forward migrations.

The store is an index of the vault plus what has no home in a note (runs, traces,
embeddings, proposals, sessions). It lives in the data directory, never inside the vault.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

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


class Store:
    """Owns the process's connection to the SQLite store.

    Calls are serialized by a lock so the TUI's workers and the runtime's event loop can
    share it; every statement is short (indexed look-ups, small writes).
    """

    def __init__(self, path: Path | str) -> None:
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
        self.migrate()

    @property
    def version(self) -> int:
        """The schema version (PRAGMA user_version)."""
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        """Apply every migration newer than the store's version, each in its own transaction."""
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

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        """Run one statement (autocommit unless inside `transaction()`)."""
        with self._lock:
            return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        """Run one statement for many rows."""
        with self._lock:
            return self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        """All rows of a query."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Any = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        with self._lock:
            return self._conn.execute(sql, params).fetchone()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: everything inside commits together or not at all."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()
