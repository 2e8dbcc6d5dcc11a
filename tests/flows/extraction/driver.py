"""Runs one stretch of an extraction in its own process (restart and crash tests).

usage: driver.py VAULT DATA start SOURCE   -> prints the run id, runs to the review
       driver.py VAULT DATA crash RUN_ID   -> approves; the process dies after the store commit

With DRIVER_HOLD_FILE set, the first model call waits until that file exists (a test holds
the run `running` meanwhile).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.flows.extraction import commit  # noqa: E402
from core.flows.extraction.graph import SPEC  # noqa: E402
from core.services import open_services  # noqa: E402
from core.settings import Settings  # noqa: E402
from local_llm.testing import ScriptedCall  # noqa: E402
from tests.flows.extraction.script import (  # noqa: E402
    ConcurrencyBackend,
    FlowScript,
    candidates,
    relations,
)


def held(script: FlowScript):
    """The script, its first call held until DRIVER_HOLD_FILE exists."""
    hold = os.environ.get("DRIVER_HOLD_FILE")

    def answer(call: ScriptedCall):
        while hold and not os.path.exists(hold):
            time.sleep(0.05)
        return script(call)

    return answer


def services(vault: str, data: str):
    settings = Settings(vault={"path": vault}, data={"directory": data})
    script = FlowScript(candidates=candidates, relations=relations)
    backend = ConcurrencyBackend(held(script))
    return open_services(settings, {"extraction": SPEC}, backend=backend)


async def main(vault: str, data: str, action: str, arg: str) -> None:
    async with services(vault, data) as app:
        if action == "start":
            app.vault.index.sync_files()
            run = app.runtime.start("extraction", {"source": arg}, target=arg)
            events = await app.runtime.run_until_pause(run.id)
            print(run.id, type(events[-1]).__name__)
            return

        def die(*args, **kwargs):
            os._exit(3)  # a crash right after the store commit, before any note is written

        commit.write_notes = die
        await app.runtime.run_until_pause(arg, {"action": "approve"}, resume=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
