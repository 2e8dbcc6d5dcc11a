"""A thin adapter so the index and search work on a `core.store.Store` or a bare sqlite3
connection (vault cannot import core: `StoreHandle` says what it uses of a Store)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

Params = Sequence[object] | Mapping[str, object]
"""A statement's parameters (SQL values), by position or by name."""


class StoreHandle(Protocol):
    """What vault uses of core's Store (`core.store.db.Store`)."""

    def execute(self, sql: str, params: Params = ..., /) -> object: ...

    def executemany(self, sql: str, rows: Iterable[Params], /) -> object: ...

    def query(self, sql: str, params: Params = ..., /) -> list[Any]: ...

    def query_one(self, sql: str, params: Params = ..., /) -> Any: ...

    def transaction(self) -> AbstractContextManager[object]: ...


Handle = sqlite3.Connection | StoreHandle


class Db:
    """execute / executemany / query / query_one / transaction over either kind of handle.

    Rows come back as the handle gives them (sqlite3 rows or tuples): by position, and by name
    on a Store; their values are whatever the columns hold, hence `Any` for a row."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self._lock = threading.RLock()

    def execute(self, sql: str, params: Params = ()) -> object:
        return self.handle.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Params]) -> object:
        if hasattr(self.handle, "executemany"):
            return self.handle.executemany(sql, rows)
        for row in rows:
            self.handle.execute(sql, row)
        return None

    def query(self, sql: str, params: Params = ()) -> list[Any]:
        if isinstance(self.handle, sqlite3.Connection):
            return list(self.handle.execute(sql, params).fetchall())
        return list(self.handle.query(sql, params))

    def query_one(self, sql: str, params: Params = ()) -> Any:
        if isinstance(self.handle, sqlite3.Connection):
            return self.handle.execute(sql, params).fetchone()
        return self.handle.query_one(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if not isinstance(self.handle, sqlite3.Connection):
            with self.handle.transaction():
                yield
            return
        with self._lock:
            if self.handle.in_transaction:
                yield
                return
            self.handle.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.handle.execute("ROLLBACK")
                raise
            else:
                self.handle.execute("COMMIT")


def as_db(handle: Db | Handle) -> Db:
    return handle if isinstance(handle, Db) else Db(handle)
