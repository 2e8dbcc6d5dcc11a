"""One stretch of a rubric run against a real model server, in its own process (restart e2e).

usage: restart_driver.py DATA_DIR VAULT BASE_URL start NOTE | ... resume RUN_ID
Prints one JSON line: the run's status, the last event, the model calls traced for the run.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.flows.registry import open_app  # noqa: E402
from core.settings import Settings  # noqa: E402


def settings_for(data_dir: str, vault: str, base_url: str) -> Settings:
    models = {
        "provider": "litellm",
        "model": "openai/gemma3-270m",
        "base_url": base_url,
        "max_tokens": 1024,
        "temperature": 0.0,
        "timeout_s": 120.0,
        "api_key_env": "",
    }
    return Settings(vault={"path": vault}, data={"directory": data_dir}, models=models)


async def main(data_dir: str, vault: str, base_url: str, action: str, arg: str) -> None:
    services = open_app(settings_for(data_dir, vault, base_url))
    async with services:
        runtime = services.runtime
        if action == "start":
            run_id = runtime.start("rubric", {"note_path": arg, "criteria": "compact"}).id
            events = await runtime.run_until_pause(run_id)
        else:
            run_id = arg
            events = await runtime.run_until_pause(run_id, {"action": "approve"}, resume=True)
        last = events[-1]
        calls = services.store.query_one("SELECT count(*) FROM traces WHERE run_id = ?", (run_id,))[
            0
        ]
        print(
            json.dumps(
                {
                    "run_id": run_id,
                    "status": runtime.runs.get(run_id).status,
                    "event": type(last).__name__,
                    "outcome": getattr(last, "output", {}).get("outcome"),
                    "model_calls": calls,
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
