"""Opening the configured store: the local SQLite file, plus PostgreSQL when configured."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING

from core.store.db import Store, StoreError

if TYPE_CHECKING:
    from core.settings import Settings
    from core.settings.sections import StoreSettings
    from core.store.postgres import PostgresStore


def conninfo(store_settings: StoreSettings, url: str | None = None) -> str:
    """The libpq connection string for `[store]` (or `url`), the password taken from the
    environment variable `password_env` names; it lives in memory only."""
    from psycopg.conninfo import make_conninfo

    target = url if url is not None else store_settings.url
    extra: dict[str, str | int] = {
        "application_name": f"noema pid {os.getpid()} on {socket.gethostname()}"[:63],
        "connect_timeout": 10,
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
    }
    name = store_settings.password_env
    if name:
        password = os.environ.get(name)
        if password is None:
            raise StoreError(
                f"store.password_env names {name}, which is not set: export {name}=... "
                "(the database password) and try again"
            )
        extra["password"] = password
    try:
        return with_commit_durability(make_conninfo(target, **extra))
    except Exception as exc:  # psycopg.ProgrammingError: not a URL libpq understands
        raise StoreError(f"store.url is not a PostgreSQL URL libpq understands: {exc}") from exc


SQLITE_LIKE_COMMITS = "-c synchronous_commit=off"
"""Commits as durable as the SQLite store's (WAL, synchronous=NORMAL): a crash of noema never
loses one; a power cut of the database server's machine may lose its last fraction of a
second of commits, never consistency. With it a run costs about what it costs on SQLite;
waiting for every commit's fsync made one 17 times slower (bench/shared_store.py). A URL
that sets its own `options` keeps them."""


def with_commit_durability(info: str) -> str:
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    if "options" in conninfo_to_dict(info):
        return info
    return make_conninfo(info, options=SQLITE_LIKE_COMMITS)


def label(url: str) -> str:
    """The URL as messages show it (no password can be in it: settings refuse one)."""
    return url.strip() or "(no url)"


def open_shared(info: str, where: str) -> PostgresStore:
    """A PostgresStore on `info` (StoreError naming `where` when it cannot be reached)."""
    import psycopg

    from core.store.postgres import PostgresStore

    try:
        return PostgresStore(info, label=where)
    except psycopg.OperationalError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise StoreError(f"cannot reach the PostgreSQL store at {where}: {reason}") from exc


def open_store(settings: Settings) -> Store:
    """The store `settings` describe: SQLite in the data directory, and with
    `[store] backend = "postgres"` the shared tables in that database."""
    store_settings = settings.store
    if store_settings.backend != "postgres":
        return Store(settings.store_path)
    shared = open_shared(conninfo(store_settings), label(store_settings.url))
    try:
        return Store(settings.store_path, shared=shared)
    except BaseException:
        shared.close()
        raise
