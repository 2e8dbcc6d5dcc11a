"""Starting the app makes no network request: the start-up runs with every socket blocked.

A fresh interpreter blocks `connect` and name resolution before importing anything of
noema's, then imports the CLI, builds settings, opens the services and runs the App headless
(home screen, model status check, vault watcher, litellm imported in the background) for a
moment. It reports every connection attempted and whether litellm was imported.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tui.demo import sample_vault

REPO = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import asyncio, ipaddress, json, socket, sys
attempts = []

def _blocked(self, address, *rest):
    attempts.append(repr(address))
    raise ConnectionRefusedError("network blocked by test_startup_offline")

_real_getaddrinfo = socket.getaddrinfo

def _resolve(host, *args, **kwargs):
    try:  # a numeric loopback address resolves without asking anyone
        if ipaddress.ip_address(host).is_loopback:
            return _real_getaddrinfo(host, *args, **kwargs)
    except ValueError:
        pass
    attempts.append(f"dns:{host}")
    raise socket.gaierror("name resolution blocked by test_startup_offline")

socket.socket.connect = _blocked
socket.socket.connect_ex = _blocked
socket.getaddrinfo = _resolve

import tui.cli  # noqa: F401  - what the console script imports first
from core.settings import Settings
from tui.app import NoemaApp

vault, data = sys.argv[1], sys.argv[2]
settings = Settings(vault={"path": vault}, data={"directory": data})

async def main():
    app = NoemaApp(settings)
    async with app.run_test() as pilot:
        for _ in range(30):
            await pilot.pause(0.1)
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        ready = app.services is not None and app.watcher is not None
    import threading
    for thread in threading.enumerate():  # the backend's import, warmed in the background
        if thread.name == "noema-warm-backends":
            thread.join(timeout=120)
    print(json.dumps({"attempts": attempts, "litellm": "litellm" in sys.modules, "ready": ready}))

asyncio.run(main())
"""


def test_start_up_makes_no_network_request(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(sample_vault(), vault)
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(vault), str(tmp_path / "data")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["ready"], result.stderr
    # litellm is imported at start-up, in the background (so no call pays for it inside its
    # timeout), and its import must make no request: its cost map is read from the package
    assert report["litellm"] is True, "the backend was not warmed at start-up"
    # the only connection start-up may attempt is the model status check of the configured
    # local server (127.0.0.1:11434 by default); nothing else, and no name lookups at all
    unexpected = [a for a in report["attempts"] if "127.0.0.1', 11434" not in a]
    assert unexpected == [], unexpected
