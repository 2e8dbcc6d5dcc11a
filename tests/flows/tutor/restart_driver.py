"""One stretch of a tutoring session in its own process (for the restart test).

usage: restart_driver.py DATA_DIR VAULT start | DATA_DIR VAULT answer SESSION_ID TEXT
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.flows.tutor.graph import SPEC  # noqa: E402
from core.flows.tutor.session import session_values, start_session, turn  # noqa: E402
from core.services import open_services  # noqa: E402
from core.settings import Settings  # noqa: E402
from local_llm.testing import ScriptedBackend  # noqa: E402
from tests.flows.tutor.scripted import TutorScript, lesson  # noqa: E402


async def main(data_dir: str, vault: str, action: str, *rest: str) -> None:
    settings = Settings(vault={"path": vault}, data={"directory": data_dir})
    backend = ScriptedBackend(TutorScript(["right"] * 5))
    async with open_services(settings, {"tutor": SPEC}, backend=backend) as services:
        runtime = services.runtime
        if action == "start":
            session = start_session(runtime, lesson(), settings).id
            events = [e async for e in turn(runtime, session)]
        else:
            session, text = rest
            events = [e async for e in turn(runtime, session, text)]
        values = await session_values(runtime, session)
        print(
            json.dumps(
                {
                    "session": session,
                    "last": type(events[-1]).__name__,
                    "roles": [m["role"] for m in values["conversation"]],
                    "first": values["conversation"][0]["content"],
                    "statuses": [s["status"] for s in values["study_plan"]["todo_list"]],
                    "calls": len(backend.calls),
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
