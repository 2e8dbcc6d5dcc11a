"""`noema extract` in its own process with a scripted model that says when a call starts and
then takes LATENCY seconds (the Ctrl-C test sends SIGINT while it waits).

usage: ctrl_c_driver.py SETTINGS_FILE NOTE LATENCY
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.flows.extraction.script import (  # noqa: E402
    ConcurrencyBackend,
    FlowScript,
    candidates,
    relations,
)
from tui import cli  # noqa: E402
from tui.commands import extraction  # noqa: E402


class AnnouncingBackend(ConcurrencyBackend):
    async def complete(self, *args, **kwargs):
        print("MODEL CALL", file=sys.stderr, flush=True)
        return await super().complete(*args, **kwargs)


if __name__ == "__main__":
    settings, note, latency = sys.argv[1:4]
    backend = AnnouncingBackend(
        FlowScript(candidates=candidates, relations=relations), latency_s=float(latency)
    )
    extraction.run_extract = partial(extraction.run_extract, backend=backend)
    sys.exit(cli.main(["--settings", settings, "extract", note]))
