"""The screen registry (tui.registry): which screen opens a run as it stands, and an app built
on a registry of its own (its keys, home's screens line, Enter on a run)."""

from __future__ import annotations

import pytest
from textual.screen import Screen
from textual.widgets import Label

from core.store.runs import RunRecord
from tests.tui.helpers import seed_runs, settle
from tui.registry import DEFAULT_REGISTRY, ScreenEntry, ScreenRegistry, resolve
from tui.screens.home import HomeScreen
from tui.screens.tutor import session_screen


def run(flow: str, status: str) -> RunRecord:
    return RunRecord("r1", flow, "Notas/Ünïcode 🧠.md", status, {}, None, "t0", "t0")


FLOW = ScreenEntry(
    "flow",
    "f",
    "Flow",
    "m:open",
    review="m:review",
    running="m:running",
    result="m:result",
)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("awaiting_review", "m:review"),
        ("running", "m:running"),
        ("done", "m:result"),
        ("queued", None),
        ("failed", None),
        ("cancelled", None),
    ],
)
def test_a_run_opens_the_screen_for_its_status(status, expected):
    assert ScreenRegistry([FLOW]).run_factory(run("flow", status)) == expected


@pytest.mark.parametrize("status", ["queued", "running", "failed", "done", "awaiting_review"])
def test_a_session_opens_whatever_its_status_but_cancelled(status):
    registry = ScreenRegistry([ScreenEntry("chat", "c", "Chat", "m:open", session="m:session")])
    assert registry.run_factory(run("chat", status)) == "m:session"
    assert registry.run_factory(run("chat", "cancelled")) is None
    assert registry.is_session("chat") and not registry.is_session("flow")


def test_a_flow_without_an_entry_opens_nothing():
    assert ScreenRegistry([FLOW]).run_factory(run("unknown", "awaiting_review")) is None
    assert not ScreenRegistry([FLOW]).has_review("unknown")


def test_copies_change_one_entry_and_keep_the_order():
    changed = DEFAULT_REGISTRY.with_entry("lesson", review="x:y")
    assert [e.name for e in changed] == [e.name for e in DEFAULT_REGISTRY]
    assert changed["lesson"].review == "x:y"
    assert DEFAULT_REGISTRY["lesson"].review == "tui.screens.lesson:review_screen"
    assert [e.name for e in DEFAULT_REGISTRY.only("usage", "model")] == ["model", "usage"]


def test_the_default_registry_names_factories_that_exist():
    """Every "module:attribute" resolves (a typo would fail only when the key is pressed)."""
    for entry in DEFAULT_REGISTRY:
        factories = [entry.open, entry.review, entry.running, entry.result, entry.session]
        for factory in filter(None, factories):
            assert callable(resolve(factory)), factory
    assert resolve(DEFAULT_REGISTRY["tutor"].session) is session_screen


class Plugged(Screen):
    def compose(self):
        yield Label("plugged in")


async def test_the_app_takes_its_screens_from_the_registry_it_is_given(make_app, settings):
    seed_runs(settings)
    opened = []

    def review(_app, record):
        opened.append(record.flow)
        return Plugged()

    registry = ScreenRegistry(
        [
            DEFAULT_REGISTRY["model"],
            ScreenEntry("lesson", "j", "Plugged", lambda _app: Plugged(), review=review),
        ]
    )
    app = make_app(registry=registry)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot, app)
        line = str(app.screen.query_one("#screens-line", Label).render())
        assert "Plugged" in line and "Model" in line and "Tutor" not in line
        await pilot.press("t")  # the default registry's tutor key: not bound here
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("j")
        assert isinstance(app.screen, Plugged)
        await pilot.press("h")
        app.open_run(run("lesson", "awaiting_review"))
        await pilot.pause()
        assert opened == ["lesson"] and isinstance(app.screen, Plugged)
