"""The checkpointer every flow runs on: SQLite in the data directory, or PostgreSQL with a
shared store (`open_postgres_checkpointer`, langgraph-checkpoint-postgres).

WAL with `synchronous=NORMAL`: a commit is durable when the app or the machine's process dies
(the WAL is replayed), and only a power cut can lose the last commits, never corrupt the file.
Flows that wait for a human still run with durability "sync", so the interrupt's checkpoint is
written before the run reports that it waits. Without NORMAL every step paid two fsyncs.

LangGraph's own SqliteSaver writes every checkpoint (its tables, its SQL, its serializer), each
call of it made in one hop to a thread of its own (`ThreadedSqliteSaver`): the AsyncSqliteSaver
made three to four hops to aiosqlite's thread per checkpoint written (statement, cursor,
commit), about 30 a tutor turn, each a wake-up of the event loop and a hand-over of the GIL.
"""

from __future__ import annotations

import asyncio
import builtins
import copy
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.sqlite import SqliteSaver

T = TypeVar("T")


class ThreadedSqliteSaver(BaseCheckpointSaver[str]):
    """LangGraph's SqliteSaver for event loops: every call one hop to its own thread (calls run
    there one at a time, in the order made, as a checkpoint's writes must)."""

    def __init__(self, saver: SqliteSaver) -> None:
        super().__init__(serde=saver.serde)
        self.saver = saver
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="checkpoints")

    async def _run(self, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    def close(self) -> None:
        """Wait for the calls under way, then close the connection."""
        self._thread.shutdown(wait=True)
        self.saver.conn.close()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self._run(self.saver.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,  # noqa: A002 - LangGraph's own name
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        found = await self._run(self._listed, config, filter, before, limit)
        for item in found:
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await self._run(self.saver.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self._run(self.saver.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await self._run(self.saver.delete_thread, thread_id)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._thread.submit(self.saver.get_tuple, config).result()

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,  # noqa: A002 - LangGraph's own name
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        yield from self._thread.submit(self._listed, config, filter, before, limit).result()

    def _listed(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,  # noqa: A002 - LangGraph's own name
        before: RunnableConfig | None,
        limit: int | None,
    ) -> builtins.list[CheckpointTuple]:
        """Read whole: SqliteSaver.list holds the connection's lock until it is exhausted."""
        return builtins.list(self.saver.list(config, filter=filter, before=before, limit=limit))

    def get_next_version(self, current: str | None, channel: None) -> str:
        return self.saver.get_next_version(current, channel)

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> ThreadedSqliteSaver:
        """The saver with the types a compiled graph allows to be read back (LangGraph's
        strict msgpack): given to the SqliteSaver, which reads and writes (same thread)."""
        inner = self.saver.with_allowlist(extra_allowlist)
        if inner is self.saver:
            return self
        clone = copy.copy(self)
        clone.saver, clone.serde = inner, inner.serde  # type: ignore[assignment]
        return clone


def _connect(path: Path) -> SqliteSaver:
    conn = sqlite3.connect(str(path), check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        saver = SqliteSaver(conn)
        saver.setup()
    except BaseException:
        conn.close()
        raise
    return saver


@asynccontextmanager
async def open_checkpointer(path: Path) -> AsyncIterator[ThreadedSqliteSaver]:
    """The SQLite checkpointer on `path` (opened in its own thread)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    threaded = ThreadedSqliteSaver(await asyncio.to_thread(_connect, path))
    try:
        yield threaded
    finally:
        await asyncio.to_thread(threaded.close)


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
