"""Runs one stretch of the counting flow in its own process (for the restart test).

usage: restart_driver.py DATA_DIR start COUNTER_FILE | DATA_DIR resume RUN_ID
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.context import FlowContext  # noqa: E402
from core.runtime import Runtime  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.store import open_store  # noqa: E402
from tests.core.counting_flow import SPEC  # noqa: E402


async def main(data_dir: str, action: str, arg: str) -> None:
    settings = Settings(data={"directory": data_dir})
    store = open_store(settings)  # NOEMA_STORE__* in the environment: a shared store

    def factory(run_id: str) -> FlowContext:
        return FlowContext(settings, None, store, run_id=run_id)

    async with Runtime(settings, store, {"counting": SPEC}, factory) as runtime:
        if action == "start":
            run = runtime.start("counting", {"counter_file": arg})
            events = await runtime.run_until_pause(run.id)
            print(run.id, type(events[-1]).__name__)
            return
        status = runtime.runs.get(arg).status
        pending = await runtime.pending_interrupt(arg)
        events = await runtime.run_until_pause(arg, "yes", resume=True)
        print(
            status,
            json.dumps(pending.payload["steps"]),
            type(events[-1]).__name__,
            json.dumps(events[-1].output["steps"]),
        )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
