"""The SQLite store: WAL, versioned forward migrations that keep data, refusal of newer stores."""

from __future__ import annotations

import sqlite3

import pytest

from core.store.db import Store, StoreError, migrations


def test_fresh_store_is_wal_and_at_the_latest_version(tmp_path):
    store = Store(tmp_path / "noema.sqlite3")
    assert store.version == migrations()[-1][0]
    assert store.query_one("PRAGMA journal_mode")[0] == "wal"
    names = {row[0] for row in store.query("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"runs", "traces"} <= names
    store.close()


def test_an_old_store_is_migrated_forward_keeping_its_rows(tmp_path):
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    version, _, sql = migrations()[0]
    conn.executescript(sql)
    conn.execute(f"PRAGMA user_version={version}")
    conn.execute(
        "INSERT INTO runs (id, flow, status, created_at, updated_at)"
        " VALUES ('r1', 'extraction', 'queued', '2026-01-01', '2026-01-01')"
    )
    conn.close()
    store = Store(path)
    assert store.version == migrations()[-1][0] > version
    assert store.query_one("SELECT status FROM runs WHERE id='r1'")[0] == "queued"
    store.close()
    # reopening runs no migration twice
    assert Store(path).version == migrations()[-1][0]


def test_a_store_newer_than_the_code_is_refused_untouched(tmp_path):
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=999")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 999
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    conn.close()
