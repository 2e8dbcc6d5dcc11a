"""The process's live model calls: what front ends show while the model works."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from pydantic import BaseModel

from core.activity import ModelActivity
from core.services import open_services
from core.settings import Settings
from local_llm import CallActivity
from local_llm.testing import ScriptedBackend


class Reply(BaseModel):
    reply: str


def call(call_id: int, phase: str, started: float, run_id: str = "r") -> CallActivity:
    return CallActivity(
        call_id,
        phase,
        "default",
        "m",
        "structured",
        run_id=run_id,  # type: ignore[arg-type]
        started=started,
    )


def test_live_calls_oldest_first_filtered_by_run_and_finished_ones_kept():
    board = ModelActivity()
    heard: list[str] = []
    board.listeners.append(lambda a: heard.append(a.phase))
    board(call(2, "started", 20.0, run_id="b"))
    board(call(1, "started", 10.0, run_id="a"))
    board(call(1, "tokens", 10.0, run_id="a"))
    assert [c.call_id for c in board.calls()] == [1, 2]
    assert [c.call_id for c in board.calls("b")] == [2]
    assert board.calls("a")[0].phase == "tokens"
    board(call(1, "finished", 10.0, run_id="a"))
    assert [c.call_id for c in board.calls()] == [2]
    assert [c.call_id for c in board.recent()] == [1]
    assert heard == ["started", "started", "finished"]  # never each token


def test_calls_from_many_threads_are_all_recorded():
    board = ModelActivity()

    def report(base: int) -> None:
        for n in range(200):
            board(call(base + n, "started", float(n)))

    threads = [threading.Thread(target=report, args=(k * 1000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(board.calls()) == 800


async def test_services_report_the_client_s_calls(tmp_path: Path):
    settings = Settings(data={"directory": tmp_path / "data"})
    backend = ScriptedBackend([{"reply": "hola"}], latency_s=0.3)
    services = open_services(settings, {}, backend=backend)
    try:
        task = asyncio.create_task(
            services.llm.structured([{"role": "user", "content": "hi"}], Reply)
        )
        while not services.activity.calls():
            await asyncio.sleep(0.01)
        (live,) = services.activity.calls()
        assert live.kind == "structured" and live.prompt_tokens > 0
        await task
        assert services.activity.calls() == []
        assert services.activity.recent()[0].outcome == "ok"
    finally:
        services.store.close()
