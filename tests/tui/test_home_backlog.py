"""Home's "extract all" (tui.widgets.backlog_runner) with a scripted model: the confirmation
with its counts, every source to its review, stopping (each run queued, not autostarted),
nothing to do, and a snapshot while the pass runs."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from pathlib import Path

import pytest

from core.flows.extraction.graph import SPEC
from core.services import open_services
from core.settings import Settings
from tests.flows.extraction.backlog import backlog_vault
from tests.flows.extraction.script import ConcurrencyBackend, FlowScript, concept, enum_of
from tests.tui.helpers import settle, wait_for
from tui.app import NoemaApp
from tui.registry import DEFAULT_REGISTRY, ScreenRegistry
from tui.screens.home import HomeScreen
from tui.widgets import RunsTable
from tui.widgets.backlog_runner import BacklogLine, ConfirmBacklog

SIZE = (130, 40)
NEW_SOURCES = 4
UNPROCESSED = NEW_SOURCES + 1  # the sample vault's own "Pensar rápido, pensar despacio"


def one_concept(_messages, schema):
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    return {"concepts": [concept("Práctica de recuperación 🧠", [ids[0]])], "notes": ""}


class GatedBackend(ConcurrencyBackend):
    """Scripted answers that wait while `gate` is closed (a model call under way)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.gate = asyncio.Event()
        self.gate.set()

    async def complete(self, messages, *, json_schema, config, schema_name="answer"):
        await self.gate.wait()
        return await super().complete(
            messages, json_schema=json_schema, config=config, schema_name=schema_name
        )


def make_app(
    tmp_path: Path, new_sources: int = NEW_SOURCES, registry: ScreenRegistry = DEFAULT_REGISTRY
) -> tuple[NoemaApp, GatedBackend]:
    root, data = tmp_path / "vault", tmp_path / "data"
    backlog_vault(root, new_sources)
    settings = Settings(
        vault={"path": root, "language": "es"},
        data={"directory": data},
        flows={"extraction": {"bulk_runs": 2, "max_critique_iterations": 1}},
    )
    backend = GatedBackend(FlowScript(candidates=one_concept))
    services = open_services(settings, {"extraction": SPEC}, backend=backend)
    services.vault.index.sync_files()
    app = NoemaApp(
        settings, services=services, vault_label="backlog-vault", watch=False, registry=registry
    )
    app.animation_level = "none"
    return app, backend


def extraction_runs(app: NoemaApp) -> dict[str, str]:
    return {r.target: r.status for r in app.services.runtime.list_runs(flow="extraction")}


def line(app: NoemaApp) -> str:
    return str(app.screen_stack[1].query_one(BacklogLine).render())


def messages(app: NoemaApp) -> list[str]:
    return [n.message for n in app._notifications]


async def pauses(pilot, count: int = 8) -> None:
    for _ in range(count):
        await pilot.pause(0.05)


async def confirm_dialog(pilot, app: NoemaApp) -> ConfirmBacklog:
    await wait_for(pilot, lambda: app.services is not None and app.model_ok)
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmBacklog))
    return app.screen


async def test_the_key_asks_then_runs_every_source_to_its_review(tmp_path):
    app, backend = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await confirm_dialog(pilot, app)
        text = str(dialog.query_one("#backlog-confirm-text").render())
        assert f"Extract {UNPROCESSED} unprocessed sources, 2 at a time" in text
        await pilot.press("escape")  # asked, declined: nothing starts
        await settle(pilot, app)
        assert isinstance(app.screen, HomeScreen) and extraction_runs(app) == {}

        await confirm_dialog(pilot, app)
        await pilot.press("y")
        await wait_for(pilot, lambda: "Extract all done" in line(app), timeout=60)
        await settle(pilot, app)
        runs = extraction_runs(app)
        assert len(runs) == UNPROCESSED and set(runs.values()) == {"awaiting_review"}
        assert f"{UNPROCESSED}/{UNPROCESSED} · {UNPROCESSED} to review" in line(app)
        assert backend.max_in_flight <= 2
        table = app.screen.query_one(RunsTable)
        shown = [table.get_row_at(i) for i in range(table.row_count)]
        assert sum("awaiting review" in str(row) for row in shown) == UNPROCESSED
        assert not app.driving  # every claim released

        await pilot.press("a")  # again: every source waits for its review; one line says so
        await wait_for(pilot, lambda: any("nothing to extract" in m for m in messages(app)))
        assert f"the {UNPROCESSED} unprocessed sources wait for their review" in messages(app)[-1]
        assert isinstance(app.screen, HomeScreen)


@pytest.mark.parametrize("stop_key", ["a", "c"])
async def test_stopping_leaves_every_run_queued_and_the_key_continues_them(tmp_path, stop_key):
    app, backend = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await confirm_dialog(pilot, app)
        backend.gate.clear()  # the model calls hang: two runs under way
        await pilot.press("y")
        await wait_for(pilot, lambda: list(extraction_runs(app).values()).count("running") == 2)
        assert "2 running" in line(app) and f"0/{UNPROCESSED}" in line(app)
        await pilot.press(stop_key)
        await wait_for(pilot, lambda: "Extract all stopped" in line(app))
        await pauses(pilot)  # not settle(): a run autostart took would wait on the model
        stopped = extraction_runs(app)
        assert sorted(stopped.values()) == ["queued", "queued"], stopped
        assert not app.driving  # autostart (on by default) left the stopped runs alone
        backend.gate.set()  # the model answers again: still nothing runs
        await settle(pilot, app)
        assert extraction_runs(app) == stopped

        await confirm_dialog(pilot, app)  # the same key continues the same runs
        await pilot.press("y")
        await wait_for(pilot, lambda: "Extract all done" in line(app), timeout=60)
        runs = app.services.runtime.list_runs(flow="extraction")
        assert len(runs) == UNPROCESSED  # the stopped runs continued, no second run
        assert {r.status for r in runs} == {"awaiting_review"}


async def test_nothing_unprocessed_is_one_line_and_no_dialog(tmp_path):
    app, _backend = make_app(tmp_path, new_sources=0)
    (tmp_path / "vault/03 - Sources/Pensar rápido, pensar despacio.md").unlink()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.services is not None and app.model_ok)
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(messages(app)))
        assert messages(app) == ["nothing to extract: every source is processed"]
        assert isinstance(app.screen, HomeScreen)
        assert not app.screen.query_one(BacklogLine).display


def test_home_snapshot_while_extract_all_runs(tmp_path, monkeypatch, snap_compare):
    """Two runs under way (their model calls hang), fixed run ids and clock."""
    ids = (f"{n:02d}" * 16 for n in itertools.count(1))
    monkeypatch.setattr("core.store.runs.uuid.uuid4", lambda: type("U", (), {"hex": next(ids)}))
    monkeypatch.setattr("core.store.runs.now_iso", lambda: "2026-01-02T10:00:00.000+00:00")
    from local_llm.activity import CallActivity  # the model panel: one spinner frame, 1 s

    monkeypatch.setattr("tui.widgets.model_activity.SPINNER", "◐")
    monkeypatch.setattr(CallActivity, "elapsed", lambda self, now=None: 1.0)
    app, backend = make_app(tmp_path, registry=DEFAULT_REGISTRY.only("model"))

    async def running(pilot):
        await confirm_dialog(pilot, app)
        backend.gate.clear()
        await pilot.press("y")
        await wait_for(pilot, lambda: list(extraction_runs(app).values()).count("running") == 2)
        await pauses(pilot)  # not settle(): the pass's worker waits on the model

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=running)
    finally:
        backend.gate.set()


async def test_a_failure_is_one_line_and_no_dialog(tmp_path, monkeypatch):
    app, _backend = make_app(tmp_path)

    def locked(_self):
        raise sqlite3.OperationalError("database is locked")

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.services is not None and app.model_ok)
        monkeypatch.setattr("core.backlog.Backlog.sources", locked)  # another process holds it
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(messages(app)))
        assert messages(app) == ["extract all failed: OperationalError: database is locked"]
        assert isinstance(app.screen, HomeScreen) and extraction_runs(app) == {}
