"""The shared side of the store in PostgreSQL: one connection per process, like SQLite's.

Statements arrive in SQLite's dialect and are rewritten by core.store.dialect. Rows behave
like sqlite3.Row (by index, by case-insensitive name, `keys()`, `dict(row)`); errors are
raised as sqlite3's DB-API exceptions (IntegrityError for a violated constraint,
OperationalError for the rest), so callers catch one family whatever the backend.

SQLite semantics kept on purpose:
- a write transaction excludes every other (`BEGIN IMMEDIATE`): `transaction()` takes a
  transaction-level advisory lock, so the check-then-write code written for SQLite stays right
  across processes and machines;
- a failed statement inside a transaction leaves the transaction usable (a savepoint per
  statement), as SQLite's statement-level rollback does;
- SUM/AVG come back as int or float, never Decimal; Python ints and bools are sent untyped
  (PostgreSQL infers the column's type, as SQLite's type affinity would).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from decimal import Decimal
from typing import Any, SupportsIndex, overload

import psycopg
from psycopg import errors as pg_errors
from psycopg.abc import Buffer
from psycopg.adapt import Dumper, Loader

from core.store.dialect import (
    POSTGRES_PRELUDE,
    Dialect,
    TableInfo,
    Translated,
    UnsupportedStatement,
)

WRITE_LOCK = 0x6E6F656D61_01  # "noema" 01: every write transaction of the shared store
MIGRATION_LOCK = 0x6E6F656D61_02  # schema migrations and checkpointer set-up

Params = Sequence[object] | Mapping[str, object]
"""A statement's parameters (SQL values), by position or by name."""


class Row(tuple[object, ...]):
    """A result row as sqlite3.Row offers it: by position, by (case-insensitive) name."""

    _index: dict[str, int]

    def __new__(cls, values: Sequence[object], index: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._index = index
        return row

    @overload
    def __getitem__(self, key: SupportsIndex | str) -> object: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[object, ...]: ...

    def __getitem__(self, key: SupportsIndex | str | slice) -> object:
        if isinstance(key, str):
            try:
                key = self._index[key.lower()]
            except KeyError:
                raise IndexError("No item with that key") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def _row_factory(cursor: Any) -> Any:
    description = cursor.description or []
    index = {column.name.lower(): i for i, column in enumerate(description)}
    return lambda values: Row(values, index)


class _NumberLoader(Loader):
    """numeric (SUM, AVG) as int when whole, else float: what sqlite3 returns."""

    def load(self, data: Buffer) -> int | float:
        value = Decimal(bytes(data).decode())
        return int(value) if value == value.to_integral_value() else float(value)


class _UntypedInt(Dumper):
    """Python ints and bools as untyped literals: the column's type decides (1/0 for bools)."""

    oid = 0

    def dump(self, obj: int) -> bytes:
        return (b"1" if obj else b"0") if isinstance(obj, bool) else str(int(obj)).encode()


class Result:
    """What `execute` returns: rows fetched at once (the connection is shared by threads)."""

    def __init__(
        self, rows: list[tuple[object, ...]], rowcount: int, lastrowid: int | None = None
    ) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> tuple[object, ...] | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[tuple[object, ...]]:
        rows, self._next = self._rows[self._next :], len(self._rows)
        return rows

    def __iter__(self) -> Iterator[tuple[object, ...]]:
        return iter(self.fetchall())


def as_sqlite_error(exc: psycopg.Error, sql: str = "") -> sqlite3.Error:
    """The sqlite3 exception a caller written for SQLite expects, with PostgreSQL's message."""
    where = f" (in: {' '.join(sql.split())[:160]})" if sql else ""
    message = f"PostgreSQL: {str(exc).strip()}{where}"
    if isinstance(exc, psycopg.IntegrityError):
        return sqlite3.IntegrityError(message)
    return sqlite3.OperationalError(message)


class PostgresStore:
    """The shared tables in one PostgreSQL database (see the module docstring)."""

    def __init__(self, conninfo: str, *, label: str) -> None:
        self.conninfo = conninfo
        """libpq connection string, password included: never printed (use `label`)."""
        self.label = label
        """Where the store is, without any password (for messages)."""
        self.dialect = Dialect()
        self._lock = threading.RLock()
        self._conn: psycopg.Connection | None = None
        self._in_tx = False
        self.lease_connection: psycopg.Connection | None = None
        """The session that holds this process's leases (core.shared_leases)."""
        self.lease_lock = threading.RLock()
        self._connect()

    def _connect(self) -> psycopg.Connection:
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        self._conn = connect(self.conninfo)
        return self._conn

    # -- statements ------------------------------------------------------------------------

    def execute(self, sql: str, params: Params | None = ()) -> Result:
        with self._lock:
            translated = self._translate(sql)
            conn = self._conn if self._in_tx else self._connect()
            assert conn is not None
            try:
                with self._statement(conn), conn.cursor() as cursor:
                    cursor.execute(translated.sql, _params(params))
                    rows = cursor.fetchall() if cursor.description else []
                    if translated.returns_rowid:
                        return Result([], cursor.rowcount, rows[0][0] if rows else None)
                    return Result(rows, cursor.rowcount)
            except psycopg.Error as exc:
                raise as_sqlite_error(exc, sql) from exc

    def executemany(self, sql: str, rows: Iterable[Params | None]) -> Result:
        with self._lock:
            translated = self._translate(sql)
            conn = self._conn if self._in_tx else self._connect()
            assert conn is not None
            batch = [_params(row) for row in rows]
            if not batch:
                return Result([], 0)
            try:
                with self._statement(conn), conn.cursor() as cursor:
                    cursor.executemany(translated.sql, batch)
                    return Result([], cursor.rowcount)
            except psycopg.Error as exc:
                raise as_sqlite_error(exc, sql) from exc

    def _translate(self, sql: str) -> Translated:
        try:
            return self.dialect.translate(sql)
        except UnsupportedStatement as exc:
            raise sqlite3.OperationalError(f"PostgreSQL store: {exc}") from exc

    def _statement(self, conn: psycopg.Connection) -> AbstractContextManager[object]:
        """Inside a transaction: a savepoint, so a failed statement leaves it usable."""
        return conn.transaction() if self._in_tx else _nothing()

    # -- transactions ----------------------------------------------------------------------

    def begin(self) -> None:
        """Start a write transaction that excludes every other one (SQLite's IMMEDIATE)."""
        conn = self._connect()
        try:
            conn.execute("BEGIN")
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        except psycopg.Error as exc:
            raise as_sqlite_error(exc) from exc
        self._in_tx = True

    def commit(self) -> None:
        self._end("COMMIT")

    def rollback(self) -> None:
        self._end("ROLLBACK")

    def _end(self, word: str) -> None:
        self._in_tx = False
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            if word == "COMMIT":
                raise sqlite3.OperationalError(
                    f"PostgreSQL store {self.label}: the connection was lost; nothing committed"
                )
            return
        try:
            conn.execute(word)
        except psycopg.Error as exc:
            raise as_sqlite_error(exc, word) from exc

    # -- schema ----------------------------------------------------------------------------

    def load_schema(self, tables: Iterable[str]) -> None:
        """Read columns, primary keys and identity columns of these tables (for the dialect)."""
        wanted = list(tables)
        conn = self._connect()
        rows = conn.execute(
            "SELECT table_name, column_name, is_identity FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ).fetchall()
        keys = conn.execute(
            "SELECT t.relname, a.attname FROM pg_index i"
            " JOIN pg_class t ON t.oid = i.indrelid"
            " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(i.indkey)"
            " WHERE i.indisprimary AND t.relnamespace = current_schema()::regnamespace"
            " ORDER BY t.relname, array_position(i.indkey::int2[], a.attnum)"
        ).fetchall()
        infos: dict[str, TableInfo] = {}
        for table in wanted:
            columns = tuple(r[1] for r in rows if r[0] == table)
            if not columns:
                continue
            identity = next((r[1] for r in rows if r[0] == table and r[2] == "YES"), None)
            key = tuple(r[1] for r in keys if r[0] == table)
            infos[table] = TableInfo(columns, key, identity)
        self.dialect = Dialect(infos)

    def close(self) -> None:
        """Close both sessions (the leases still held are released with theirs)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        with self.lease_lock:
            if self.lease_connection is not None:
                self.lease_connection.close()
                self.lease_connection = None


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _params(params: Params | None) -> tuple[object, ...] | Mapping[str, object]:
    if params is None:
        return ()
    if isinstance(params, dict):
        return params
    return tuple(params)


def connect(conninfo: str, *, autocommit: bool = True) -> psycopg.Connection:
    """A connection with noema's adapters (rows, numbers, untyped ints)."""
    conn = psycopg.connect(conninfo, autocommit=autocommit, row_factory=_row_factory)
    adapt(conn)
    return conn


def adapt(conn: psycopg.Connection) -> None:
    conn.adapters.register_loader("numeric", _NumberLoader)
    conn.adapters.register_dumper(int, _UntypedInt)
    conn.adapters.register_dumper(bool, _UntypedInt)


def install_prelude(conn: psycopg.Connection) -> None:
    """SQLite's functions and collation in this database (idempotent)."""
    try:
        conn.execute(POSTGRES_PRELUDE)
    except pg_errors.FeatureNotSupported:  # a server built without ICU: NOCASE is C order
        conn.execute(POSTGRES_PRELUDE.split("DO $$")[0])
        conn.execute('CREATE COLLATION IF NOT EXISTS nocase FROM "C"')
