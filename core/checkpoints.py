"""The SQLite checkpointer every flow runs on.

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
