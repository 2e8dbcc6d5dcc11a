"""Stopping a running run: the model call is aborted, the run is `cancelled`, and it continues
later from its last checkpoint without redoing finished nodes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from core.events import Done
from core.runtime import STOPPED
from core.services import open_services
from core.settings import Settings
from core.store.runs import INTERRUPTED
from local_llm.testing import ScriptedBackend
from tests.core.model_flow import SPEC, counts


def services_for(tmp_path: Path, backend: ScriptedBackend):
    settings = Settings(data={"directory": tmp_path / "data"})
    return open_services(settings, {"asking": SPEC}, backend=backend)


async def started(runtime, run_id: str, backend: ScriptedBackend) -> asyncio.Task:
    """A task driving the run, once it waits on the model."""
    task = asyncio.create_task(runtime.run_until_pause(run_id))
    for _ in range(200):
        if backend.calls:
            return task
        await asyncio.sleep(0.02)
    raise AssertionError("the run never called the model")


async def test_a_stopped_run_is_cancelled_and_continues_from_its_checkpoint(tmp_path) -> None:
    backend = ScriptedBackend(lambda *_: {"reply": "pong"}, latency_s=60)
    counter = tmp_path / "counts.json"
    async with services_for(tmp_path, backend) as services:
        runtime = services.runtime
        run = runtime.start("asking", {"counter_file": str(counter)})
        task = await started(runtime, run.id, backend)
        runtime.stop(run.id)
        task.cancel()
        await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 5)
        record = runtime.runs.get(run.id)
        assert (record.status, record.error) == ("cancelled", STOPPED)
        assert counts(counter) == {"read": 1}
        backend.latency_s = 0
        events = await runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Done)
        assert events[-1].output["steps"] == ["read", "ask", "write"]
        assert counts(counter) == {"read": 1, "ask": 1, "write": 1}  # read was not redone
        assert runtime.runs.get(run.id).status == "done"


async def test_a_front_end_closing_leaves_the_run_to_recover(tmp_path) -> None:
    backend = ScriptedBackend(lambda *_: {"reply": "pong"}, latency_s=60)
    async with services_for(tmp_path, backend) as services:
        runtime = services.runtime
        run = runtime.start("asking", {"counter_file": str(tmp_path / "c.json")})
        task = await started(runtime, run.id, backend)
        task.cancel()  # not a stop: e.g. the app quitting
        await asyncio.gather(task, return_exceptions=True)
        record = runtime.runs.get(run.id)  # queued again at once, shown as interrupted
        assert (record.status, record.error, record.interrupted) == ("queued", INTERRUPTED, True)
        assert runtime.recover_interrupted() == []  # nothing left running to recover
