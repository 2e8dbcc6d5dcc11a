"""A thin adapter so the index and search work on a `core.store.Store` or a bare sqlite3
connection (vault cannot import core; it relies on duck typing)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Db:
    """execute / executemany / query / query_one / transaction over either kind of handle."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self._is_conn = isinstance(handle, sqlite3.Connection)
        self._lock = threading.RLock()

    def execute(self, sql: str, params: Any = ()) -> Any:
        return self.handle.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> Any:
        if hasattr(self.handle, "executemany"):
            return self.handle.executemany(sql, rows)
        for row in rows:
            self.handle.execute(sql, row)
        return None

    def query(self, sql: str, params: Any = ()) -> list[Any]:
        if self._is_conn:
            return list(self.handle.execute(sql, params).fetchall())
        return list(self.handle.query(sql, params))

    def query_one(self, sql: str, params: Any = ()) -> Any:
        if self._is_conn:
            return self.handle.execute(sql, params).fetchone()
        return self.handle.query_one(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if not self._is_conn:
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


def as_db(handle: Any) -> Db:
    return handle if isinstance(handle, Db) else Db(handle)
