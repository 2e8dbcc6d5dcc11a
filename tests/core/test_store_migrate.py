"""`noema store migrate --to postgres URL`: a used SQLite store (a run waiting at its review
with its checkpoints, traces, a merge journal with bytes, a tutor session and mastery) is
copied into an empty PostgreSQL database, checked by counts, and the run resumes there."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from core.context import FlowContext
from core.runtime import Runtime
from core.settings import Settings
from core.store import Store, open_store
from core.store.runs import RunsRepo
from tests.core.counting_flow import SPEC
from tests.fixtures.postgres import PASSWORD_ENV
from tui.cli import main


def runtime(settings: Settings, store: Store) -> Runtime:
    return Runtime(
        settings, store, {"counting": SPEC}, lambda r: FlowContext(settings, None, store, run_id=r)
    )


def used_sqlite_store(tmp_path: Path) -> tuple[Path, str]:
    """A data directory whose store has a run at its review and rows in several tables."""
    data = tmp_path / "data"
    settings = Settings(data={"directory": data})
    store = Store(settings.store_path)

    async def to_review() -> str:
        async with runtime(settings, store) as rt:
            run = rt.start("counting", {"counter_file": str(tmp_path / "c.json")})
            await rt.run_until_pause(run.id)
            return run.id

    run_id = asyncio.run(to_review())
    RunsRepo(store).create("tutor", {"topic": "Zona de desarrollo próximo 🧠"}, status="done")
    store.execute(
        "INSERT INTO merge_journals (review_id, status, created_at, updated_at)"
        " VALUES ('rev', 'applied', 'a', 'a')"
    )
    store.execute(
        "INSERT INTO merge_journal_steps (journal_id, seq, kind, path, before_hash, before_bytes,"
        " after_hash, done) VALUES (1, 0, 'write', '08 - Ideas/Ñ.md', 'h', ?, 'h2', 1)",
        ("---\nentity_id: x\n---\n«x»\x00".encode(),),
    )
    store.execute(
        "INSERT INTO tutor_sessions (id, title, status, mastery, created_at, updated_at)"
        " VALUES ('s1', 'Zona 🧠', 'active', 0.4, 'a', 'a')"
    )
    store.execute(
        "INSERT INTO tutor_mastery VALUES ('s1', 'c1', 'Zona', 0.4, '2026-01-01T00:00:00')"
    )
    store.execute("INSERT INTO notes VALUES ('a.md', 'h', 0, 0, 'note', 'A', '{}', 'now')")
    store.close()
    (tmp_path / "settings.toml").write_text(f'[data]\ndirectory = "{data}"\n', encoding="utf-8")
    return data, run_id


def test_migrate_copies_everything_checks_counts_and_the_run_resumes_there(
    tmp_path: Path, postgres_store: dict, capsys
) -> None:
    data, run_id = used_sqlite_store(tmp_path)
    url = postgres_store["url"]
    args = ["--settings", str(tmp_path / "settings.toml"), "store", "migrate", "--to", "postgres"]
    assert main([*args, url, "--password-env", PASSWORD_ENV]) == 0
    out = capsys.readouterr().out
    assert f"copied into {url} in " in out and "every count matches" in out
    for table, rows in (
        ("runs", 2),
        ("traces", 0),
        ("merge_journal_steps", 1),
        ("tutor_sessions", 1),
        ("tutor_mastery", 1),
    ):
        assert any(line.split()[:2] == [table, str(rows)] for line in out.splitlines()), table
    assert "1 of 1 run(s) end at the same checkpoint" in out
    assert f'password_env = "{PASSWORD_ENV}"' in out

    settings = Settings(data={"directory": data}, store=postgres_store)
    store = open_store(settings)
    try:
        step = store.query_one("SELECT before_bytes, path FROM merge_journal_steps")
        assert bytes(step[0]) == "---\nentity_id: x\n---\n«x»\x00".encode()
        assert store.query_one("SELECT title FROM tutor_sessions")[0] == "Zona 🧠"
        new = store.execute(
            "INSERT INTO merge_journals (review_id, status, created_at, updated_at)"
            " VALUES ('rev2', 'applied', 'b', 'b')"
        )
        assert new.lastrowid == 2  # ids continue after the copied ones

        async def resume() -> list:
            async with runtime(settings, store) as rt:
                assert (await rt.pending_interrupt(run_id)).payload["steps"] == ["prepare"]
                return await rt.run_until_pause(run_id, "yes", resume=True)

        events = asyncio.run(resume())
        assert events[-1].output["steps"] == ["prepare", "review", "commit"]
    finally:
        store.close()

    # the target is not empty any more: a second migrate refuses and changes nothing
    assert main([*args, url, "--password-env", PASSWORD_ENV]) == 1
    err = capsys.readouterr().err
    assert "already holds 2 runs" in err and "empty store" in err


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://noema:hunter2@127.0.0.1/x", "the URL holds a password"),
        ("postgresql://noema@127.0.0.1:1/x", "cannot reach the PostgreSQL store"),
    ],
)
def test_migrate_refuses_a_password_in_the_url_and_names_an_unreachable_server(
    tmp_path: Path, capsys, url: str, message: str
) -> None:
    used_sqlite_store(tmp_path)
    code = main(
        ["--settings", str(tmp_path / "settings.toml"), "store", "migrate", "--to", "postgres", url]
    )
    err = capsys.readouterr().err
    assert code == 1 and message in err and "hunter2" not in err and "Traceback" not in err


def test_copy_order_names_the_tables_that_exist_parents_before_children(tmp_path: Path) -> None:
    """Tables rebuilt as `x_new` and renamed into place (migration 0008 rebuilds
    extraction_commits) are copied under their final name, before the tables that refer to
    them; the order is checked against SQLite's own foreign keys."""
    from core.store.copy import table_order
    from tests.core.test_store_dialect import SHARED

    store = Store(tmp_path / "store.sqlite3")
    try:
        existing = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type='table'")}
        order = table_order(existing)
        parents = {
            table: {row[2] for row in store.query(f"PRAGMA foreign_key_list({table})")}
            for table in order
        }
    finally:
        store.close()
    assert set(order) == SHARED
    assert len(order) == len(SHARED)
    for table, referenced in parents.items():
        for parent in referenced - {table}:
            assert order.index(parent) < order.index(table), (parent, table)
