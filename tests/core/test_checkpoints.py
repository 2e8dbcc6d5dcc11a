"""The SQLite checkpointer (core.checkpoints): LangGraph's SqliteSaver, one hop a call to a
thread of its own; what it writes is read back by LangGraph's own async saver."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from core.checkpoints import ThreadedSqliteSaver, open_checkpointer


def config(thread: str, checkpoint_id: str | None = None) -> dict:
    configurable = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


async def test_checkpoints_written_are_read_back_also_by_langgraphs_async_saver(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "checkpoints.sqlite3"
    async with open_checkpointer(path) as saver:
        ids = []
        parent: str | None = None
        for step in range(3):
            checkpoint = empty_checkpoint()
            checkpoint["channel_values"] = {"conversation": ["¿1/2 o 1/4? 🍕"] * (step + 1)}
            saved = await saver.aput(config("séance-1", parent), checkpoint, {"step": step}, {})
            parent = saved["configurable"]["checkpoint_id"]
            ids.append(parent)
            await saver.aput_writes(saved, [("conversation", "Дробь")], task_id=f"task-{step}")
        async for _first in saver.alist(config("séance-1")):
            break  # left early: the saver's connection is not held
        await saver.aput(config("séance-2"), empty_checkpoint(), {"step": 0}, {})
        latest = await saver.aget_tuple(config("séance-1"))
        assert latest is not None and latest.checkpoint["id"] == ids[-1]
        assert [t.checkpoint["id"] for t in saver.list(config("séance-1"))] == ids[::-1]
    async with aiosqlite.connect(str(path)) as conn:
        again = await AsyncSqliteSaver(conn).aget_tuple(config("séance-1"))
        assert again is not None
        assert again.checkpoint["channel_values"]["conversation"] == ["¿1/2 o 1/4? 🍕"] * 3
        assert [w[1:] for w in again.pending_writes] == [("conversation", "Дробь")]


def test_the_types_a_graph_allows_are_those_the_sqlite_saver_reads_with(tmp_path: Path) -> None:
    """LangGraph gives a compiled graph's checkpointer the types it may read back (strict
    msgpack): the saver that reads and writes must get them, not only its wrapper."""
    conn = sqlite3.connect(tmp_path / "checkpoints.sqlite3", check_same_thread=False)
    strict = JsonPlusSerializer(allowed_msgpack_modules=None)
    saver = ThreadedSqliteSaver(SqliteSaver(conn, serde=strict))
    try:
        allowed = saver.with_allowlist([("tests.core.test_checkpoints", "Séance")])
        assert allowed is not saver and allowed.saver is not saver.saver
        assert allowed.serde is allowed.saver.serde is not saver.saver.serde
        assert allowed.saver.conn is conn  # one file, one thread
    finally:
        saver.close()
