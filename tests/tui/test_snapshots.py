"""Snapshot tests of the home and model screens (fixed vault label, fixed runs, no clock)."""

from __future__ import annotations

import pytest

from tests.tui.conftest import seed_runs, settle
from tui import app as app_module

SIZE = (130, 36)


@pytest.fixture(autouse=True)
def only_shell_screens(monkeypatch):
    """Home lists every registered screen; keep these snapshots to the shell's own."""
    monkeypatch.setattr(app_module, "SCREENS", {"model": app_module.SCREENS["model"]})


def test_home_snapshot(make_app, settings, snap_compare):
    seed_runs(settings)
    app = make_app()

    async def ready(pilot):
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_model_screen_snapshot(make_app, snap_compare):
    app = make_app()

    async def ready(pilot):
        await settle(pilot, app)
        await pilot.press("m")
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)
