"""The model as a new user meets it, against a real Ollama-compatible server process
(tests/servers): the configured model is not pulled, home says what to do in one line, the
model screen lists what the server has and `enter` makes one a role's model (saved in the
user's settings file, comments kept), a pull shows its progress, and a queued run waits for
its model and starts by itself once the server lists it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, OptionList, ProgressBar

from core.services import open_services
from core.settings import load_settings
from tests.core.model_flow import SPEC, counts
from tests.tui.helpers import make_settings, settle, wait_for
from tui.app import NoemaApp
from tui.screens.home import HomeScreen
from tui.screens.model import ModelScreen
from tui.widgets import RunsTable

SIZE = (150, 44)
USER_FILE = """\
# my noema settings (hand-written: keep this comment)
[models]
model = "ollama_chat/qwen2.5:7b"   # the one a blog post recommended
"""


def app_on(server, vault: Path, tmp_path: Path, flows=None, **tui) -> NoemaApp:
    user_file = tmp_path / "user-settings.toml"
    user_file.write_text(USER_FILE, encoding="utf-8")
    settings = make_settings(
        vault,
        tmp_path / "data",
        models={"model": "ollama_chat/qwen2.5:7b", "base_url": server.url, "timeout_s": 20},
        tui={"model_recheck_s": 0.2, "model_recheck_max_s": 0.4, **tui},
    )
    services = open_services(settings, flows or {})
    return NoemaApp(settings, services=services, watch=False, settings_path=user_file)


def panel(app) -> str:
    return app.screen.query_one("#model-panel").text


def rows(table: DataTable) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_home_says_what_to_do_and_the_picker_fixes_it(fake_ollama, vault, tmp_path) -> None:
    app = app_on(fake_ollama, vault, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model_ok is False)
        await settle(pilot, app)
        text = panel(app)
        assert "qwen2.5:7b is not on the server (it has: llama3.2:latest, nomic-embed-text" in text
        assert (
            "Fix: run `ollama pull qwen2.5:7b` (or p on the model screen), or choose an "
            "installed model with m"
        ) in text
        await pilot.press("m")
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        table = screen.query_one("#installed", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        assert rows(table) == [
            ["llama3.2:latest", "2.0 GB", "3.2B", "131,072", ""],
            ["nomic-embed-text:latest", "274 MB", "137M", "2,048", ""],
        ]
        assert {r["json"]["model"] for r in fake_ollama.requests("/api/show")} == {
            "llama3.2:latest",
            "nomic-embed-text:latest",
        }
        table.focus()
        await pilot.press("enter")  # llama3.2 ...
        await wait_for(pilot, lambda: app.screen.query(OptionList))
        await pilot.press("enter")  # ... for the default role (the first one offered)
        await wait_for(pilot, lambda: app.model_ok is True)
        await wait_for(
            pilot, lambda: rows(table) and rows(table)[0][-1] == "default, judge, judge_secondary"
        )
        assert app.services.llm.config("default").model == "ollama_chat/llama3.2:latest"
        await pilot.press("escape")
        await settle(pilot, app)
        assert isinstance(app.screen, HomeScreen) and "Fix" not in panel(app)
    saved = (tmp_path / "user-settings.toml").read_text(encoding="utf-8")
    assert saved == USER_FILE.replace("qwen2.5:7b", "llama3.2:latest")
    assert (
        load_settings(tmp_path / "user-settings.toml").models.model == "ollama_chat/llama3.2:latest"
    )


async def test_an_embedding_model_is_chosen_for_its_role(fake_ollama, vault, tmp_path) -> None:
    app = app_on(fake_ollama, vault, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("m")
        table = app.screen.query_one("#installed", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        table.focus()
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.screen.query(OptionList))
        await pilot.press("end", "enter")  # the last role offered: embedding
        await wait_for(pilot, lambda: rows(table)[1][-1] == "embedding")
    settings = load_settings(tmp_path / "user-settings.toml")
    assert settings.role("embedding").model == "ollama/nomic-embed-text:latest"
    assert settings.models.embeddings_enabled and settings.models.model == "ollama_chat/qwen2.5:7b"


async def test_a_pull_shows_its_progress_and_starts_the_waiting_run(
    fake_ollama, vault, tmp_path
) -> None:
    counter = tmp_path / "counts.json"
    app = app_on(fake_ollama, vault, tmp_path, flows={"asking": SPEC})
    run = app._injected.runtime.start("asking", {"counter_file": str(counter)})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model_ok is False)
        await settle(pilot, app)
        status = str(app.screen.query_one(RunsTable).get_row_at(0)[0])
        assert status == "waiting for model qwen2.5:7b"
        await pilot.press("m")
        screen = app.screen
        await pilot.press("p", *"qwen2.5:7b", "enter")
        bar = screen.query_one("#pull-progress", ProgressBar)
        await wait_for(pilot, lambda: bar.percentage == 1.0)
        await wait_for(pilot, lambda: app._injected.runtime.runs.get(run.id).status == "done")
    pulls = fake_ollama.requests("/api/pull")
    assert [r["json"]["model"] for r in pulls] == ["qwen2.5:7b"]
    assert counts(counter) == {"read": 1, "ask": 1, "write": 1}


async def test_a_queued_run_starts_by_itself_once_the_server_lists_its_model(
    fake_ollama, vault, tmp_path
) -> None:
    counter = tmp_path / "counts.json"
    app = app_on(fake_ollama, vault, tmp_path, flows={"asking": SPEC})
    runtime = app._injected.runtime
    run = runtime.start("asking", {"counter_file": str(counter)})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model_ok is False)
        tags = len(fake_ollama.requests("/api/tags"))
        await wait_for(pilot, lambda: len(fake_ollama.requests("/api/tags")) >= tags + 2)
        assert "Waiting: 1 queued run waits · next check in" in panel(app)
        assert runtime.runs.get(run.id).status == "queued"
        assert not fake_ollama.requests("/api/chat")  # never started against a missing model
        # the user pulls it in a terminal: the next check finds it and the run starts
        fake_ollama.set_models([{"name": "llama3.2:latest"}, {"name": "qwen2.5:7b"}])
        await wait_for(pilot, lambda: runtime.runs.get(run.id).status == "done")
    chats = fake_ollama.requests("/api/chat")
    assert [c["json"]["model"] for c in chats] == ["qwen2.5:7b"]
    assert chats[0]["json"]["options"]["num_ctx"] >= 8192
    assert counts(counter) == {"read": 1, "ask": 1, "write": 1}


async def test_a_model_gone_mid_run_is_a_short_message_and_home_says_the_fix(
    fake_ollama, vault, tmp_path
) -> None:
    fake_ollama.set_models([{"name": "llama3.2:latest"}, {"name": "qwen2.5:7b"}])
    not_found = {"error": 'model "qwen2.5:7b" not found, try pulling it first'}
    fake_ollama.answers({"status": 404, "body": not_found, "delay_s": 1.0})
    app = app_on(fake_ollama, vault, tmp_path, flows={"asking": SPEC})
    runtime = app._injected.runtime
    run = runtime.start("asking", {"counter_file": str(tmp_path / "c.json")})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: fake_ollama.requests("/api/chat"))
        fake_ollama.set_models([{"name": "llama3.2:latest"}])  # deleted while the run asked
        await wait_for(pilot, lambda: runtime.runs.get(run.id).status == "failed")
        await wait_for(pilot, lambda: app.model_ok is False)
        await settle(pilot, app)
        toast = next(n.message for n in app._notifications if "failed" in n.message)
        assert "ollama pull qwen2.5:7b" in toast
        assert not any(raw in toast for raw in ("litellm", "Exception", "NotFoundError", ".py"))
        assert "Fix: run `ollama pull qwen2.5:7b`" in panel(app)
        detail = app._injected.store.query_one(
            "SELECT detail FROM traces WHERE run_id=? AND kind='failure'", (run.id,)
        )[0]
        assert "not found" in detail  # the raw error stays in the run's trace


def server_on(port: int, models: list[dict]):
    """The fake Ollama server started on a given port (as a user starts Ollama later)."""
    import json
    import os
    import subprocess
    import sys

    from tests.servers.handle import ROOT, FakeServer

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.servers",
            "ollama",
            "--port",
            str(port),
            "--models",
            json.dumps(models),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().startswith("LISTENING")
    return FakeServer("ollama", process, port)


async def test_starting_ollama_later_starts_the_waiting_run(vault, tmp_path) -> None:
    from local_llm.local_server import free_port

    class NotYet:  # the server's address before anything listens there
        url = f"http://127.0.0.1:{free_port()}"

    counter = tmp_path / "counts.json"
    app = app_on(NotYet, vault, tmp_path, flows={"asking": SPEC})
    runtime = app._injected.runtime
    run = runtime.start("asking", {"counter_file": str(counter)})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model_ok is False)
        await settle(pilot, app)
        assert "cannot reach qwen2.5:7b" in panel(app) and "Fix: start Ollama" in panel(app)
        assert runtime.runs.get(run.id).status == "queued"
        port = int(NotYet.url.rsplit(":", 1)[1])
        with server_on(port, [{"name": "qwen2.5:7b"}]) as server:
            await wait_for(pilot, lambda: runtime.runs.get(run.id).status == "done")
            assert [c["json"]["model"] for c in server.requests("/api/chat")] == ["qwen2.5:7b"]
    assert counts(counter) == {"read": 1, "ask": 1, "write": 1}


async def test_with_the_model_down_the_panel_fits_at_100_columns(vault, tmp_path) -> None:
    """At 100x30 the Fix and Waiting rows plus Now and Queue overflowed the panel: the last
    rows and the border were cut. With the model down and no call, Waiting says it all."""
    from local_llm.local_server import free_port

    class Down:
        url = f"http://127.0.0.1:{free_port()}"

    app = app_on(Down, vault, tmp_path, flows={"asking": SPEC})
    app._injected.runtime.start("asking", {"counter_file": str(tmp_path / "c.json")})
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.model_ok is False)
        await settle(pilot, app)
        await wait_for(pilot, lambda: "Waiting" in panel(app))
        text = panel(app)
        assert "Fix: start Ollama" in text and "Now:" not in text and "Queue:" not in text
        box = app.screen.query_one("#model-panel")
        inside = box.content_region
        needed = box.get_content_height(inside.size, app.size, inside.width)
        assert needed <= inside.height, (needed, inside.height, text)
