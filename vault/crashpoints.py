"""A test hook that makes the process die, or wait, at a chosen step of a write.

Off unless an environment variable is set; the crash-sweep and race tests set them in the
subprocesses they start (tests/durability, bench/crash_sweep.py):

- `NOEMA_CRASH_AT=N`: SIGKILL this process at the Nth crash point it reaches (1-based).
- `NOEMA_STALL_AT=NAME:DIR`: at the first crash point named NAME, create `DIR/NAME.reached`
  and wait (at most two minutes) until `DIR/NAME.go` exists: a race test holds one process
  at a precise step while another one runs.

Crash points sit between the steps of every vault write (temporary file written, renamed)
and at the steps of the store that race (the extraction commit, answering a review). When
both variables are unset a crash point costs two environment look-ups.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

_counter = 0


def crash_point(name: str) -> None:
    """Die or wait here when the environment asks for it; otherwise do nothing."""
    global _counter
    at = os.environ.get("NOEMA_CRASH_AT")
    if at:
        _counter += 1
        if _counter == int(at):
            os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
    stall = os.environ.get("NOEMA_STALL_AT")
    if stall and stall.partition(":")[0] == name:
        del os.environ["NOEMA_STALL_AT"]  # once per process
        _wait(Path(stall.partition(":")[2]), name)


def _wait(directory: Path, name: str) -> None:
    (directory / f"{name}.reached").touch()
    deadline = time.monotonic() + 120
    while not (directory / f"{name}.go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
