"""The store on both backends: SQLite alone (the default) and the shared tables in a real
PostgreSQL server (tests/fixtures/postgres.py). Same calls, same answers."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.settings import Settings
from core.store import StoreError, migrations, open_store
from core.store.runs import RunsRepo
from tests.fixtures.postgres import PASSWORD_ENV, store_env

REPO = Path(__file__).resolve().parents[2]


def settings_for(tmp_path: Path, store: dict) -> Settings:
    return Settings(data={"directory": tmp_path / "data"}, store=store)


@pytest.fixture
def store(tmp_path, store_backend):
    opened = open_store(settings_for(tmp_path, store_backend))
    yield opened
    opened.close()


def test_runs_round_trip_on_both_backends(store, store_backend) -> None:
    assert store.backend == ("postgres" if store_backend else "sqlite")
    runs = RunsRepo(store)
    run = runs.create("extraction", {"source": "03 - Sources/Ñandú «x».md"}, target="t")
    assert runs.get(run.id).input == {"source": "03 - Sources/Ñandú «x».md"}
    assert runs.find(run.id[:6].upper()).id == run.id  # LIKE ignores case on both
    assert runs.enqueue_once("extraction", {}, target="t") is None
    runs.set_status(run.id, "awaiting_review")
    assert [r.id for r in runs.list(status="awaiting_review")] == [run.id]
    row = store.query_one("SELECT * FROM runs WHERE id = ?", (run.id,))
    assert row["STATUS"] == row["status"] == row[3] == "awaiting_review"
    assert dict(row)["target"] == "t"
    assert "input_json" in list(row.keys())  # a Row's own `in` looks at its values


def test_sums_ids_upserts_and_conflicts_behave_like_sqlite(store) -> None:
    for tokens in (3, 4):
        store.execute(
            "INSERT INTO traces (run_id, prompt_tokens, outcome, created_at) VALUES (?, ?, 'ok', 'x')",
            ("r", tokens),
        )
    total, mean = store.query_one("SELECT SUM(prompt_tokens), AVG(prompt_tokens) FROM traces")
    assert (total, mean) == (7, 3.5) and type(total) is int
    first = store.execute(
        "INSERT INTO merge_journals (review_id, status, created_at, updated_at)"
        " VALUES (?, 'in_progress', 'a', 'a')",
        ("rev",),
    )
    second = store.execute(
        "INSERT INTO merge_journals (review_id, status, created_at, updated_at)"
        " VALUES (?, 'applied', 'a', 'a')",
        ("rev",),
    )
    assert second.lastrowid == first.lastrowid + 1
    assert store.execute("SELECT 1 FROM runs").fetchall() == []
    sql = (
        "INSERT OR REPLACE INTO lesson_runs (run_id, mode, status, score, updated_at)"
        " VALUES (?, ?, 'done', ?, 'now')"
    )
    store.execute(sql, ("l1", "generate", 0.5))
    store.execute(sql, ("l1", "review", 0.75))
    assert [tuple(r) for r in store.query("SELECT mode, score FROM lesson_runs")] == [
        ("review", 0.75)
    ]
    ignore = "INSERT OR IGNORE INTO normalization_weak_merges (key, a_id, b_id, a_name, b_name, created_at) VALUES (?, 'a', 'b', 'A', 'B', 'now')"
    store.execute(ignore, ("a|b",))
    store.execute(ignore, ("a|b",))
    assert store.query_one("SELECT COUNT(*) FROM normalization_weak_merges")[0] == 1
    store.execute(
        "INSERT INTO merge_journal_steps (journal_id, seq, kind, path, before_hash, before_bytes,"
        " after_hash, done) VALUES (?, 0, 'write', 'a.md', 'h', ?, 'h2', ?)",
        (first.lastrowid, "é\x00".encode(), True),
    )
    row = store.query_one("SELECT before_bytes, done FROM merge_journal_steps")
    assert (bytes(row[0]), row[1]) == ("é\x00".encode(), 1)

    with pytest.raises(sqlite3.IntegrityError):
        store.execute(
            "INSERT INTO runs (id, flow, status, created_at, updated_at)"
            " VALUES ('x', 'f', 'not-a-status', 'a', 'a')"
        )


def test_a_transaction_is_all_or_nothing_on_both_sides(store) -> None:
    runs = RunsRepo(store)
    run = runs.create("extraction", {}, target="a")
    with pytest.raises(RuntimeError), store.transaction() as conn:
        conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", (run.id,))
        conn.execute("INSERT INTO notes VALUES ('n.md', 'h', 0, 0, 'concept', 'N', '{}', 'now')")
        raise RuntimeError("boom")
    assert runs.get(run.id).status == "queued"
    assert store.query("SELECT path FROM notes") == []

    with store.transaction() as conn:
        conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", (run.id,))
        with pytest.raises(sqlite3.IntegrityError):  # the transaction stays usable after it
            conn.execute(
                "INSERT INTO runs (id, flow, status, created_at, updated_at)"
                " VALUES (?, 'f', 'queued', 'a', 'a')",
                (run.id,),
            )
        conn.execute("INSERT INTO notes VALUES ('n.md', 'h', 0, 0, 'concept', 'N', '{}', 'now')")
    assert runs.get(run.id).status == "done"
    assert [r[0] for r in store.query("SELECT path FROM notes")] == ["n.md"]


def test_the_vault_index_stays_local_and_shared_rows_go_to_postgresql(tmp_path, postgres_store):
    store = open_store(settings_for(tmp_path, postgres_store))
    try:
        RunsRepo(store).create("extraction", {})
        store.execute("INSERT INTO notes VALUES ('n.md', 'h', 0, 0, 'concept', 'N', '{}', 'now')")
        conn = store.shared._connect()
        pg_tables = {
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchall()
        }
        assert {"runs", "tutor_mastery", "merge_journals", "noema_schema"} <= pg_tables
        assert not {"notes", "concepts", "embeddings", "quotes"} & pg_tables
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        assert conn.execute("SELECT version FROM noema_schema").fetchone()[0] == migrations()[-1][0]
        local = store._conn
        assert local.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
        assert local.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 1
    finally:
        store.close()


def test_an_older_shared_store_is_migrated_forward_keeping_its_rows(tmp_path, postgres_store):
    from core.store.db import Store, layout
    from core.store.open import conninfo, open_shared
    from core.store.shared_schema import migrate_shared

    settings = settings_for(tmp_path, postgres_store)
    first = open_shared(conninfo(settings.store), "test")
    migrate_shared(first, migrations()[:1], layout())
    first._connect().execute(
        "INSERT INTO runs (id, flow, status, created_at, updated_at)"
        " VALUES ('r1', 'extraction', 'queued', 'a', 'a')"
    )
    first.close()
    store = open_store(settings)
    try:
        assert store.query_one("SELECT status FROM runs WHERE id = 'r1'")[0] == "queued"
        assert store.query_one("SELECT COUNT(*) FROM tutor_mastery")[0] == 0
    finally:
        store.close()
    assert isinstance(store, Store)


def test_a_table_rebuilt_by_a_later_migration_keeps_its_rows_on_postgresql(
    tmp_path, postgres_store
):
    """Migration 0008 rebuilds extraction_commits (SQLite's CREATE x_new, copy, DROP, RENAME)
    to allow `abandoned`: a shared store made before it keeps its pending commit, and the
    rebuilt table takes the new status and a second rebuilt-table key without collisions."""
    from core.store.db import layout
    from core.store.open import conninfo, open_shared
    from core.store.shared_schema import migrate_shared

    before = [m for m in migrations() if m[0] < 8]
    assert before and migrations()[-1][0] >= 8
    settings = settings_for(tmp_path, postgres_store)
    first = open_shared(conninfo(settings.store), "test")
    migrate_shared(first, before, layout())
    first._connect().execute(
        "INSERT INTO extraction_commits (run_id, source_path, status, plan_json, created_at,"
        " updated_at) VALUES ('r1', 'Fuentes/Señales 📡.md', 'pending', '{}', 'a', 'a')"
    )
    first.close()
    store = open_store(settings)
    try:
        row = store.query_one(
            "SELECT source_path, status, written_json, error"
            " FROM extraction_commits WHERE run_id = 'r1'"
        )
        assert tuple(row) == ("Fuentes/Señales 📡.md", "pending", "[]", None)
        store.execute(
            "UPDATE extraction_commits SET status='abandoned', error=? WHERE run_id='r1'",
            ("a path out of the vault",),
        )
        with pytest.raises(sqlite3.IntegrityError):
            store.execute(
                "INSERT INTO extraction_commits (run_id, source_path, status, plan_json,"
                " created_at, updated_at) VALUES ('r1', 'x.md', 'pending', '{}', 'b', 'b')"
            )
        assert store.query_one("SELECT status FROM extraction_commits")[0] == "abandoned"
    finally:
        store.close()


def test_a_shared_store_newer_than_this_noema_is_refused_untouched(tmp_path, postgres_store):
    settings = settings_for(tmp_path, postgres_store)
    open_store(settings).close()
    store = open_store(settings)
    store.shared._connect().execute("UPDATE noema_schema SET version = 999")
    store.close()
    with pytest.raises(StoreError, match="newer than this noema"):
        open_store(settings)


def test_two_processes_opening_a_new_shared_store_at_once_migrate_it_once(
    tmp_path, postgres_store
) -> None:
    code = (
        "import sys; from core.settings import Settings; from core.store import open_store;"
        "s = open_store(Settings(data={'directory': sys.argv[1]})); print(s.backend); s.close()"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), **store_env(postgres_store)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path / f"d{i}")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [out.strip() for out, _ in results] == ["postgres"] * 3, results
    store = open_store(settings_for(tmp_path, postgres_store))
    try:
        assert (
            store.shared._connect().execute("SELECT COUNT(*) FROM noema_schema").fetchone()[0] == 1
        )
    finally:
        store.close()


def test_a_lost_connection_is_replaced_at_the_next_statement(
    tmp_path, postgres_store, postgres_cluster
):
    store = open_store(settings_for(tmp_path, postgres_store))
    try:
        runs = RunsRepo(store)
        run = runs.create("extraction", {})
        pid = store.shared._connect().info.backend_pid
        postgres_cluster.admin(f"SELECT pg_terminate_backend({pid})")
        import sqlite3

        with pytest.raises(sqlite3.OperationalError):  # the statement in flight fails...
            runs.get(run.id)
        assert runs.get(run.id).id == run.id  # ...the next one reconnects
    finally:
        store.close()


def test_unreachable_store_wrong_password_and_missing_variable_are_one_line(
    tmp_path, postgres_store, monkeypatch
) -> None:
    unreachable = {**postgres_store, "url": "postgresql://noema@127.0.0.1:1/none"}
    with pytest.raises(
        StoreError, match="cannot reach the PostgreSQL store at postgresql://noema@127.0.0.1:1/none"
    ):
        open_store(settings_for(tmp_path, unreachable))
    monkeypatch.setenv(PASSWORD_ENV, "wrong")
    with pytest.raises(StoreError, match="password authentication failed") as failed:
        open_store(settings_for(tmp_path, postgres_store))
    assert "wrong" not in str(failed.value)
    monkeypatch.delenv(PASSWORD_ENV)
    with pytest.raises(StoreError, match=f"password_env names {PASSWORD_ENV}, which is not set"):
        open_store(settings_for(tmp_path, postgres_store))


def test_commits_are_as_durable_as_sqlites_and_a_urls_own_options_win(
    tmp_path, postgres_store, postgres_cluster
):
    """noema's sessions commit without waiting for the WAL flush (SQLite's WAL with
    synchronous=NORMAL: a crash of noema loses nothing, a power cut may lose the last commits);
    a URL that sets `options` itself keeps them."""
    from core.store.open import conninfo
    from core.store.postgres import connect

    database = postgres_store["url"].rsplit("/", 1)[1]
    postgres_cluster.admin(f"ALTER DATABASE {database} SET synchronous_commit = on")  # durable
    store = open_store(settings_for(tmp_path, postgres_store))
    try:
        assert store.shared.execute("SHOW synchronous_commit").fetchone()[0] == "off"
    finally:
        store.close()
    url = postgres_store["url"] + "?options=-c%20synchronous_commit%3Don"
    own = settings_for(tmp_path / "own", {**postgres_store, "url": url}).store
    with connect(conninfo(own)) as conn:
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
