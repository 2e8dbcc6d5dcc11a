"""A run's status values, in a module that imports nothing heavy.

`noema --help` lists them as the choices of `noema runs --status`; importing the runs table
for them pulled in the store, pydantic and asyncio before any help was printed.
"""

from __future__ import annotations

from typing import Literal

RunStatus = Literal["queued", "running", "awaiting_review", "done", "failed", "cancelled"]
ACTIVE_STATUSES: tuple[RunStatus, ...] = ("queued", "running", "awaiting_review")
