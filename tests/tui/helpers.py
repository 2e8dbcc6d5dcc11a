"""Helpers the TUI tests share: settings in tmp dirs, seeded runs, waiting on a Pilot.

The fixtures that use them (`vault`, `settings`, `make_app`) are in tests/tui/conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.settings import Settings
from core.store.runs import RunsRepo
from tui.app import NoemaApp

FIXED_RUNS = [
    (
        "a1" * 16,
        "extraction",
        "03 - Sources/Deep Work.md",
        "queued",
        "2026-01-02T10:00:00.000+00:00",
    ),
    (
        "b2" * 16,
        "lesson",
        "10 - Curriculum/Memoria",
        "awaiting_review",
        "2026-01-02T09:00:00.000+00:00",
    ),
    ("c3" * 16, "rubric", "00 - Inbox/Borrador.md", "failed", "2026-01-02T08:00:00.000+00:00"),
]


def make_settings(vault: Path, data: Path, **sections: Any) -> Settings:
    values: dict[str, Any] = {
        "vault": {"path": vault, "watch_debounce_ms": 50},
        "data": {"directory": data},
    }
    for key, value in sections.items():
        values[key] = {**values.get(key, {}), **value}
    return Settings(**values)


def seed_runs(settings: Settings, runs=FIXED_RUNS) -> None:
    """Runs with fixed ids and timestamps (deterministic tables and snapshots)."""
    from core.store import Store

    store = Store(settings.store_path)
    try:
        for run_id, flow, target, status, stamp in runs:
            store.execute(
                "INSERT INTO runs (id, flow, target, status, input_json, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, '{}', ?, ?)",
                (run_id, flow, target, status, stamp, stamp),
            )
            if status == "failed":
                RunsRepo(store).set_status(run_id, "failed", error="ValueError: bad rubric")
                store.execute("UPDATE runs SET updated_at=? WHERE id=?", (stamp, run_id))
    finally:
        store.close()


AppFactory = Callable[..., NoemaApp]


async def settle(pilot, app: NoemaApp, rounds: int = 3) -> None:
    """Let posted messages and workers finish."""
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 15.0) -> None:
    """Pause the pilot until `condition()` holds; fail after `timeout` seconds of pauses."""
    waited = 0.0
    while not condition():
        await pilot.pause(0.05)
        waited += 0.05
        if waited > timeout:
            raise AssertionError("timed out waiting for the screen")


def shown(shows: Any, width: int = 100) -> str:
    """What a Static (or a Rich renderable) shows, as plain text (trailing spaces dropped)."""
    import io

    from rich.console import Console
    from textual.widgets import Static

    content = shows.content if isinstance(shows, Static) else shows
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(content)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())
