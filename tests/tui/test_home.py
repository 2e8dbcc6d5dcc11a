"""Pilot tests of the home screen: panels, runs table, help, keymap, watcher, autostart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.screen import Screen
from textual.widgets import Label

from tests.core import counting_flow
from tests.tui.helpers import FIXED_RUNS, make_settings, seed_runs, settle
from tui.registry import DEFAULT_REGISTRY
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.widgets import RunsTable

SIZE = (130, 40)


def plain(panel) -> str:
    return panel.text


async def test_home_shows_counts_model_status_and_runs(make_app, settings):
    seed_runs(settings)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, HomeScreen)
        vault = plain(app.screen.query_one("#vault-panel"))
        assert "sample-vault" in vault
        assert "source 4" in vault and "concept 14" in vault
        assert "Concepts: 14" in vault
        assert "Unprocessed: 1 source" in vault and "1 sources" not in vault  # Pensar rápido…
        model = plain(app.screen.query_one("#model-panel"))
        assert "Status: ● a scripted model" in model
        table = app.screen.query_one(RunsTable)
        # active runs first: awaiting review, then queued, then failed
        order = [table.get_row_at(i)[4] for i in range(table.row_count)]
        assert order == [FIXED_RUNS[1][0][:8], FIXED_RUNS[0][0][:8], FIXED_RUNS[2][0][:8]]


async def test_runs_table_keyboard_navigation_and_review_registry(make_app, settings):
    seed_runs(settings)
    opened = []

    class ReviewScreen(Screen):
        def compose(self):
            yield Label("review")

    def factory(app, run):
        opened.append(run.id)
        return ReviewScreen()

    app = make_app(registry=DEFAULT_REGISTRY.with_entry("lesson", review=factory))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(RunsTable)
        assert table.selected_run_id == FIXED_RUNS[1][0]
        await pilot.press("down")
        assert table.selected_run_id == FIXED_RUNS[0][0]
        await pilot.press("enter")  # queued extraction run: no review screen, a notification
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert any("extraction run" in n.message for n in app._notifications)
        await pilot.press("up", "enter")
        await pilot.pause()
        assert opened == [FIXED_RUNS[1][0]]
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("h")
        assert isinstance(app.screen, HomeScreen)


async def test_help_lists_bindings_with_ids(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        title = str(app.screen.query_one("#help-title", Label).render())
        assert "[tui] keymap" in title  # not eaten as console markup
        ids = {row[2] for row in app.screen.rows}
        assert {
            "app.help",
            "app.quit",
            "app.screen.model",
            "home.open_run",
            "home.start_run",
        } <= ids
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_keymap_from_settings_remaps_a_binding(make_app, vault, tmp_path):
    custom = make_settings(vault, tmp_path / "data2", tui={"keymap": {"app.help": "f1"}})
    app = make_app(app_settings=custom)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_watcher_status_and_events_queue_an_extraction(make_app, settings, vault: Path):
    app = make_app(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "watching" in plain(app.screen.query_one("#watcher-panel"))
        note = vault / "03 - Sources" / "New book.md"
        note.write_text("---\ntitle: New book\n---\n## Highlights\n\n> A quote worth keeping.\n")
        for _ in range(60):
            await asyncio.sleep(0.1)
            await pilot.pause()
            if "New book.md" in plain(app.screen.query_one("#watcher-panel")):
                break
        watcher = plain(app.screen.query_one("#watcher-panel"))
        assert "created" in watcher and "New book.md" in watcher
        await settle(pilot, app)
        table = app.screen.query_one(RunsTable)
        targets = {run.target for run in table.records.values()}
        assert "03 - Sources/New book.md" in targets
        assert "03 - Sources/Pensar rápido, pensar despacio.md" in targets  # caught up at start
    assert app.watcher is not None and not app.watcher.running


async def test_queued_run_autostarts_and_stops_at_review(make_app, settings, tmp_path):
    app = make_app(flows={"counting": counting_flow.SPEC})
    runs = app._injected.runtime
    run = runs.start("counting", {"counter_file": str(tmp_path / "counts.json")})
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(50):
            await settle(pilot, app)
            if runs.runs.get(run.id).status == "awaiting_review":
                break
        assert runs.runs.get(run.id).status == "awaiting_review"
        assert any("awaits your review" in n.message for n in app._notifications)
        app.resume_run(run.id, "approved")
        for _ in range(50):
            await settle(pilot, app)
            if runs.runs.get(run.id).status == "done":
                break
        assert runs.runs.get(run.id).status == "done"
        table = app.screen.query_one(RunsTable)
        assert table.records[run.id].status == "done"


async def test_start_and_cancel_selected_run(make_app, settings):
    seed_runs(settings)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(RunsTable)
        await pilot.press("down")  # the queued extraction run
        await pilot.press("s")  # its flow is not installed here: it waits
        await pilot.pause()
        assert any("not installed" in n.message for n in app._notifications)
        await pilot.press("c")
        await settle(pilot, app)
        assert table.records[FIXED_RUNS[0][0]].status == "cancelled"


async def test_without_a_vault_home_says_what_to_do(tmp_path):
    from core.services import open_services
    from core.settings import Settings
    from local_llm.testing import ScriptedBackend
    from tui.app import NoemaApp

    settings = Settings(data={"directory": tmp_path / "data"})
    services = open_services(settings, {}, backend=ScriptedBackend([]))
    app = NoemaApp(settings, services=services)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = app.screen.query_one("#vault-panel").text
        assert "no vault configured" in text and "noema demo" in text
        assert app.watcher is None


async def test_command_palette_opens_a_registered_screen(make_app):
    from tui.screens.model import ModelScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Open Model")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ModelScreen)


async def test_a_second_run_does_not_cancel_the_first(make_app, tmp_path):
    app = make_app(flows={"counting": counting_flow.SPEC})
    runtime = app._injected.runtime
    first = runtime.start("counting", {"counter_file": str(tmp_path / "one.json")})
    second = runtime.start("counting", {"counter_file": str(tmp_path / "two.json")})
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(50):
            await settle(pilot, app)
            statuses = {runtime.runs.get(r.id).status for r in (first, second)}
            if statuses == {"awaiting_review"}:
                break
        assert statuses == {"awaiting_review"}  # one after the other, both reached review
        assert app.resume_run(first.id, "ok") is True
        assert app.resume_run(first.id, "again") is False  # already being driven
        app.resume_run(second.id, "ok")
        for _ in range(50):
            await settle(pilot, app)
            if {runtime.runs.get(r.id).status for r in (first, second)} == {"done"}:
                break
        assert {runtime.runs.get(r.id).status for r in (first, second)} == {"done"}


async def test_screen_keys_fit_the_footer_and_home_lists_them(make_app, settings):
    """Footers carry each screen's own keys (they used to overflow at 160 columns with every
    screen key on every screen); home lists the screen keys, remapped ones included, and the
    keys still open their screens from anywhere."""
    from textual.widgets._footer import FooterKey

    settings.tui.keymap = {"app.screen.lesson": "L"}
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        line = str(app.screen.query_one("#screens-line", Label).render())
        assert " m  Model" in line and " x  Extraction" in line and " L  Lessons" in line
        for screen_key in ("m", "x"):
            await pilot.press(screen_key)
            await pilot.pause()
            keys = app.screen.query(FooterKey)
            assert keys and not any("open_screen" in key.action for key in keys)
            assert sum(key.size.width for key in keys) <= 160 - 12  # room for ^p palette
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("L")
        await pilot.pause()
        assert type(app.screen).__name__ == "LessonScreen"


async def test_home_says_how_many_notes_need_fixing(make_app, vault):
    (vault / "08 - Ideas" / "Rota.md").write_text("---\nentity_id: [x\n---\n# Rota\n")
    (vault / "03 - Sources" / "Vacía.md").write_text("")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        vault_panel = plain(app.screen.query_one("#vault-panel"))
        assert "To fix: 2 notes (noema doctor)" in vault_panel
        assert "Concepts: 14" in vault_panel  # the malformed note is no concept
