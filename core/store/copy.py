"""`noema store migrate --to postgres URL`: the SQLite store's shared state into PostgreSQL.

The shared tables (core.store.tables) are copied with COPY in one transaction, ids included
(identity sequences continue after them); the LangGraph checkpoints (every thread, every
checkpoint with its pending writes, oldest first) through the two checkpointers' own APIs,
so the copy does not depend on either library's table layout. Then every count is compared:
each shared table, the checkpoints and their writes, and each thread's latest checkpoint.
The local vault index stays where it is; the SQLite file keeps its copy of the shared rows
(a backup; noema no longer reads them once the settings point at PostgreSQL).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.store.db import Store, StoreError, layout, migrations
from core.store.sqltext import split_script
from core.store.tables import created_table, renamed

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

    from core.settings import Settings


@dataclass
class Copied:
    """What one migrate copied: per table (rows in SQLite, rows in PostgreSQL)."""

    tables: dict[str, tuple[int, int]] = field(default_factory=dict)
    checkpoints: tuple[int, int] = (0, 0)
    writes: tuple[int, int] = (0, 0)
    threads: tuple[int, int] = (0, 0)
    """Threads whose latest checkpoint is the same on both sides, of all threads."""
    seconds: float = 0.0

    @property
    def mismatches(self) -> list[str]:
        rows = dict(self.tables)
        rows |= {"checkpoints": self.checkpoints, "checkpoint writes": self.writes}
        wrong = [
            f"{name}: {a} in SQLite, {b} in PostgreSQL" for name, (a, b) in rows.items() if a != b
        ]
        if self.threads[0] != self.threads[1]:
            wrong.append(
                f"threads: {self.threads[1] - self.threads[0]} latest checkpoint(s) differ"
            )
        return wrong


def table_order(existing: set[str] | frozenset[str]) -> list[str]:
    """The shared tables that exist, in the order the migrations create them (parents before
    children); a table rebuilt as `x_new` and renamed keeps the place of `x`."""
    created: list[str] = []
    renames: dict[str, str] = {}
    for _, _, sql in migrations():
        for statement in split_script(sql):
            if (pair := renamed(statement)) is not None:
                renames[pair[0]] = pair[1]
            elif (made := created_table(statement)) is not None:
                created.append(made[0])
    final = [renames.get(name, name) for name in created]
    return [t for t in dict.fromkeys(final) if t in existing and t in layout().shared]


def _columns(store: Store, table: str) -> list[str]:
    return [row[1] for row in store.query(f"PRAGMA table_info({table})")]


def refuse_unless_empty(target: Store, tables: list[str]) -> None:
    held = {t: target.query_one(f"SELECT COUNT(*) FROM {t}")[0] for t in tables}
    held = {t: n for t, n in held.items() if n}
    if held:
        listing = ", ".join(f"{n} {t}" for t, n in held.items())
        raise StoreError(
            f"the PostgreSQL store already holds {listing}; migrate copies into an empty "
            "store (use a new database, or drop this one's tables first)"
        )


def copy_tables(source: Store, target: Store, tables: list[str]) -> None:
    """Every row of every shared table, in one PostgreSQL transaction, with COPY."""
    shared = target.shared
    assert shared is not None
    conn = shared._connect()
    with shared._lock, conn.transaction():
        for table in tables:
            columns = [
                c for c in _columns(source, table) if c in shared.dialect.tables[table].columns
            ]
            names = ", ".join(columns)
            rows = source._conn.execute(f"SELECT {names} FROM {table}")
            with conn.cursor() as cursor, cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(tuple(row))
        from core.store.shared_schema import reset_identities

        reset_identities(conn, layout())


def count_tables(source: Store, target: Store, tables: list[str]) -> dict[str, tuple[int, int]]:
    return {
        t: (
            int(source.query_one(f"SELECT COUNT(*) FROM {t}")[0]),
            int(target.query_one(f"SELECT COUNT(*) FROM {t}")[0]),
        )
        for t in tables
    }


async def copy_checkpoints(
    path: Path, conninfo: str
) -> tuple[list[CheckpointTuple], tuple[int, int] | None]:
    """Every checkpoint of the SQLite checkpointer into PostgreSQL's, oldest first (a parent
    before its children), each with its pending writes; (source tuples, target saver)."""
    from core.checkpoints import open_checkpointer, open_postgres_checkpointer

    if not path.exists():
        return [], None
    async with open_checkpointer(path) as source, open_postgres_checkpointer(conninfo) as target:
        tuples = [t async for t in source.alist(None)]
        tuples.sort(key=lambda t: t.checkpoint["id"])
        for item in tuples:
            await _put(target, item)
        latest = await _latest_match(tuples, target)
    return tuples, latest


async def _put(target: BaseCheckpointSaver[str], item: CheckpointTuple) -> None:
    configurable = item.config["configurable"]
    parent = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    config: RunnableConfig = {
        "configurable": {
            "thread_id": configurable["thread_id"],
            "checkpoint_ns": configurable.get("checkpoint_ns", ""),
        }
    }
    if parent:
        config["configurable"]["checkpoint_id"] = parent
    stored = await target.aput(
        config, item.checkpoint, item.metadata, dict(item.checkpoint["channel_versions"])
    )
    by_task: dict[tuple[str, str], list[tuple[str, object]]] = {}
    for task_id, channel, value in item.pending_writes or []:
        by_task.setdefault((task_id, ""), []).append((channel, value))
    for (task_id, task_path), writes in by_task.items():
        await target.aput_writes(stored, writes, task_id, task_path)


async def _latest_match(
    tuples: list[CheckpointTuple], target: BaseCheckpointSaver[str]
) -> tuple[int, int]:
    latest: dict[tuple[str, str], str] = {}
    for item in tuples:
        c = item.config["configurable"]
        latest[(c["thread_id"], c.get("checkpoint_ns", ""))] = item.checkpoint["id"]
    same = 0
    for (thread, ns), checkpoint_id in latest.items():
        found = await target.aget_tuple(
            {"configurable": {"thread_id": thread, "checkpoint_ns": ns}}
        )
        same += found is not None and found.checkpoint["id"] == checkpoint_id
    return same, len(latest)


def migrate_to_postgres(settings: Settings, conninfo: str, where: str) -> Copied:
    """Copy this data directory's shared state into the PostgreSQL database at `conninfo`."""
    import asyncio

    from core.store.open import open_shared

    started = time.perf_counter()
    source = Store(settings.store_path)
    target = Store(settings.store_path, shared=open_shared(conninfo, where))
    try:
        tables = table_order(set(target.shared.dialect.tables))  # type: ignore[union-attr]
        refuse_unless_empty(target, tables)
        copy_tables(source, target, tables)
        copied = Copied(tables=count_tables(source, target, tables))
        tuples, latest = asyncio.run(
            copy_checkpoints(settings.data_dir / "checkpoints.sqlite3", conninfo)
        )
        writes = sum(len(t.pending_writes or []) for t in tuples)
        copied.checkpoints = (len(tuples), _count(target, "checkpoints"))
        copied.writes = (writes, _count(target, "checkpoint_writes"))
        copied.threads = latest or (0, 0)
    finally:
        source.close()
        target.close()
    copied.seconds = time.perf_counter() - started
    return copied


def _count(target: Store, table: str) -> int:
    conn = target.shared._connect()  # type: ignore[union-attr]
    found = conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()
    if found is None or found[0] is None:
        return 0
    counted = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    return int(counted[0]) if counted is not None else 0
