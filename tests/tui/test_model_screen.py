"""Pilot tests of the model screen: roles, connection test, Ollama list and pull."""

from __future__ import annotations

from textual.widgets import DataTable, ProgressBar, Static

from local_llm.testing import ScriptedBackend
from tests.tui.helpers import settle
from tui.screens.model import ModelScreen

SIZE = (130, 40)


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def open_model_screen(pilot, app) -> ModelScreen:
    await settle(pilot, app)
    await pilot.press("m")
    await settle(pilot, app)
    assert isinstance(app.screen, ModelScreen)
    return app.screen


async def test_roles_and_connection_test_round_trip(make_app):
    backend = ScriptedBackend([{"reply": "pong"}])
    app = make_app(backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_model_screen(pilot, app)
        roles = screen.query_one("#roles", DataTable)
        assert [roles.get_row_at(i)[0] for i in range(roles.row_count)][:4] == [
            "default",
            "judge",
            "judge_secondary",
            "embedding",
        ]
        assert "not tested" in text_of(screen, "#test-result")
        await pilot.press("c")
        await settle(pilot, app)
        assert "answered 'pong'" in text_of(screen, "#test-result")
        request = backend.calls_of("complete")[0]
        assert request.json_schema["properties"]["reply"]  # a structured request, bounded to pong


async def test_connection_test_reports_a_bad_answer(make_app):
    backend = ScriptedBackend(['{"reply": "ping"}'] * 5)
    app = make_app(backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_model_screen(pilot, app)
        await pilot.click("#test")
        await settle(pilot, app)
        result = text_of(screen, "#test-result")
        assert "gave no valid answer after 3 attempts (models.retries = 2)" in result
        assert "StructuredOutputError" not in result  # the mapped message, not the class
        assert app.is_running


async def test_installed_models_and_pull_with_progress(make_app):
    backend = ScriptedBackend([], models=["llama3.2:latest"])
    app = make_app(backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_model_screen(pilot, app)
        installed = screen.query_one("#installed", DataTable)
        assert [installed.get_row_at(i)[0] for i in range(installed.row_count)] == [
            "llama3.2:latest"
        ]
        await pilot.press("p")
        await pilot.press(*"qwen2.5:7b")
        await pilot.press("enter")
        await settle(pilot, app)
        assert screen.query_one("#pull-progress", ProgressBar).percentage == 1.0
        assert "success" in text_of(screen, "#pull-status")
        names = [installed.get_row_at(i)[0] for i in range(installed.row_count)]
        assert names == ["llama3.2:latest", "qwen2.5:7b"]


class BrokenPull(ScriptedBackend):
    async def pull(self, name, config=None):
        raise ConnectionError("ollama went away")
        yield  # pragma: no cover - makes this an async generator


async def test_a_failing_worker_is_a_notification_not_a_crash(make_app):
    app = make_app(backend=BrokenPull([]))
    async with app.run_test(size=SIZE) as pilot:
        await open_model_screen(pilot, app)
        await pilot.press("p", *"gemma3", "enter")
        await settle(pilot, app)
        assert app.is_running
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "ollama went away" in errors[0].message


async def test_ollama_models_through_litellm_report_a_down_server(tmp_path, vault):
    from core.services import open_services
    from local_llm.local_server import free_port
    from tests.tui.helpers import make_settings
    from tui.app import NoemaApp

    port = free_port()
    settings = make_settings(
        vault, tmp_path / "data", models={"base_url": f"http://127.0.0.1:{port}"}
    )
    app = NoemaApp(settings, services=open_services(settings, {}), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_model_screen(pilot, app)
        note = text_of(screen, "#installed-note")
        assert f"cannot list models at http://127.0.0.1:{port}" in note
        assert app.is_running


async def test_opened_before_the_services_it_fills_in_when_they_are_ready(make_app):
    from tui.messages import ServicesReady

    app = make_app(backend=ScriptedBackend([], models=["llama3.2:latest"]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        services, app.services = app.services, None  # as during start-up
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert "still opening" in text_of(screen, "#installed-note")
        app.services = services
        screen.post_message(ServicesReady())
        await settle(pilot, app)
        assert "1 installed" in text_of(screen, "#installed-note")


async def test_a_hosted_model_is_not_listed_and_nothing_is_pulled(tmp_path, vault):
    from core.services import open_services
    from tests.tui.helpers import make_settings
    from tui.app import NoemaApp

    settings = make_settings(
        vault, tmp_path / "data", models={"model": "gpt-4o-mini", "base_url": None}
    )
    app = NoemaApp(settings, services=open_services(settings, {}), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_model_screen(pilot, app)
        assert "hosted provider's models are not listed" in text_of(screen, "#installed-note")
        for part in ("#installed", "#pull-row", "#pull-progress", "#pull-status"):
            assert not screen.query_one(part).display, part


async def test_an_openai_compatible_server_is_listed_but_not_pulled_from(tmp_path, vault):
    from core.services import open_services
    from tests.tui.helpers import make_settings
    from tui.app import NoemaApp

    settings = make_settings(
        vault,
        tmp_path / "data",
        models={"model": "openai/gemma3-270m", "base_url": "http://127.0.0.1:9/v1"},
    )
    app = NoemaApp(settings, services=open_services(settings, {}), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_model_screen(pilot, app)
        assert "cannot list models at http://127.0.0.1:9/v1" in text_of(screen, "#installed-note")
        for part in ("#pull-row", "#pull-progress", "#pull-status"):
            assert not screen.query_one(part).display, part
