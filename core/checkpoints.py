"""The checkpointer every flow runs on: SQLite in the data directory, or PostgreSQL with a
shared store (`open_postgres_checkpointer`, langgraph-checkpoint-postgres).

WAL with `synchronous=NORMAL`: a commit is durable when the app or the machine's process dies
(the WAL is replayed), and only a power cut can lose the last commits, never corrupt the file.
Flows that wait for a human still run with durability "sync", so the interrupt's checkpoint is
written before the run reports that it waits. Without NORMAL every step paid two fsyncs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


@asynccontextmanager
async def open_checkpointer(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """An AsyncSqliteSaver on `path`, created inside the running event loop."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path))
    try:
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
        yield saver
    finally:
        await conn.close()


CHECKPOINT_SETUP_LOCK = 0x6E6F656D61_03
"""Advisory lock around the PostgreSQL checkpointer's own migrations (two processes
starting at once would both create its tables)."""


@asynccontextmanager
async def open_postgres_checkpointer(conninfo: str) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """An AsyncPostgresSaver on the shared store's database (a small pool: a connection
    lost to a restart of the server is replaced, not fatal to the process)."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg import AsyncConnection
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    settings = {"autocommit": True, "row_factory": dict_row}
    pool = AsyncConnectionPool(
        conninfo,
        min_size=1,
        max_size=2,
        kwargs=settings,
        open=False,
    )
    await pool.open(wait=True, timeout=30)
    try:
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]  # dict_row is set in kwargs
        async with await AsyncConnection.connect(conninfo, autocommit=True) as lock_conn:
            await lock_conn.execute("SELECT pg_advisory_lock(%s)", (CHECKPOINT_SETUP_LOCK,))
            try:
                await saver.setup()
            finally:
                await lock_conn.execute("SELECT pg_advisory_unlock(%s)", (CHECKPOINT_SETUP_LOCK,))
        yield saver
    finally:
        await pool.close()
