"""Issue 12, "No silent minutes": a wait on the model shows which call it is, its elapsed time
and tokens, and what waits behind it (home's queue indicator); the extraction screen opened
on a run already going follows it; the demo says how far indexing is."""

from __future__ import annotations

from pathlib import Path

from core.flows.extraction.graph import SPEC
from core.services import open_services
from core.settings import Settings
from local_llm import CallActivity
from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import FlowScript, candidates, relations
from tests.flows.extraction.test_runtime import make_vault
from tests.tui.helpers import wait_for
from tests.tui.test_extraction_screen import GatedBackend
from tui.app import NoemaApp
from tui.screens.extraction import ExtractionScreen
from tui.widgets.extraction_sources import SourcesTable
from tui.widgets.extraction_steps import ExtractionSteps
from tui.widgets.model_activity import ModelActivityLine, activity_text, queue_text


def held_app(tmp_path: Path, **extraction: object) -> tuple[NoemaApp, GatedBackend]:
    """An app whose extraction runs stop in duplicate detection (1.1b) until the gate opens."""
    root, data = make_vault(tmp_path)
    flows = {"extraction": extraction}
    settings = Settings(vault={"path": root}, data={"directory": data}, flows=flows)
    backend = GatedBackend(FlowScript(candidates=candidates, relations=relations))
    services = open_services(settings, {"extraction": SPEC}, backend=backend)
    services.vault.index.sync_files()
    app = NoemaApp(settings, services=services, watch=False)
    app.animation_level = "none"
    return app, backend


def plain(widget) -> str:
    return str(widget.render())


async def test_the_extraction_screen_opened_on_a_run_already_going_follows_it(
    tmp_path: Path,
) -> None:
    app, backend = held_app(tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        run = app.services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        app.drive_run(run.id)  # the watcher's run, say, started before the screen opened
        await wait_for(pilot, lambda: backend.held > 0)
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ExtractionScreen)
        await wait_for(pilot, lambda: screen.run_id == run.id)
        steps = screen.query_one(ExtractionSteps)
        assert steps.states["load"] == "done" and steps.states["1.1a"] == "done"
        assert steps.states["1.1b"] == "running"
        assert screen.query_one(SourcesTable).current_path() == SOURCE
        backend.gate.set()
        await wait_for(pilot, lambda: screen.review is not None)  # and on to its review


async def test_a_wait_on_the_model_shows_the_call_its_time_and_what_waits_behind(
    tmp_path: Path,
) -> None:
    # one duplicate check per candidate: two calls, one of them waiting behind the other
    app, backend = held_app(tmp_path, duplicate_checks="per_candidate")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        run = app.services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        queued = app.services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        app.drive_run(run.id)
        await wait_for(pilot, lambda: backend.held >= 2)  # two detections wait on the model
        home = app.screen
        await wait_for(pilot, lambda: "detect_duplicate" in home.query_one("#model-panel").text)
        panel = home.query_one("#model-panel").text
        assert "extraction · detect_duplicate" in panel and " s · " in panel
        assert "behind it" in panel and "1 run queued" in panel
        await pilot.press("x")
        line = app.screen.query_one(ModelActivityLine)
        await wait_for(pilot, lambda: "detect_duplicate" in plain(line))
        first = plain(line)
        assert "waiting behind it" in first and "prompt" in first
        await pilot.pause(1.2)
        assert plain(line) != first  # the clock moves while the model works
        backend.gate.set()
        await wait_for(pilot, lambda: app.screen.review is not None)
        await wait_for(pilot, lambda: "model idle" in plain(line))
        app.services.runtime.cancel(queued.id)


def call(call_id: int, node: str, started: float, **fields) -> CallActivity:
    return CallActivity(
        call_id,
        "tokens",
        "default",
        "openai/gemma3-270m",
        fields.pop("kind", "stream"),
        flow="tutor",
        node=node,
        run_id=fields.pop("run_id", "s1"),
        started=started,
        **fields,
    )


def test_activity_text_names_the_call_elapsed_tokens_and_its_place_in_the_queue():
    calls = [
        call(1, "planner", 100.0, run_id="other", kind="structured", prompt_tokens=900),
        call(2, "executor", 103.0, completion_tokens=42, prompt_tokens=1200),
        call(3, "evaluator", 104.0, kind="structured"),
    ]
    text = activity_text(calls, "s1", now=110.0).plain
    assert "tutor · executor" in text and "7 s · 42 tokens · prompt 1,200 tokens" in text
    assert "gemma3-270m" in text and "1 call ahead" in text and "1 waiting behind it" in text
    assert "model busy with another run" in activity_text(calls[:1], "s1", now=110.0).plain
    assert "10 s · prompt 900 tokens" in activity_text(calls[:1], None, now=110.0).plain
    assert activity_text([], None, now=1.0).plain == "model idle"
    queue = queue_text(calls, queued_runs=2).plain
    assert "2 calls behind it (tutor · executor, tutor · evaluator)" in queue
    assert "2 runs queued" in queue
    assert queue_text(calls[:1], queued_runs=0).plain == "nothing waiting"


def test_the_demo_says_how_far_indexing_is(tmp_path: Path) -> None:
    from tui import demo as demo_mod

    lines: list[str] = []
    settings = Settings(vault={"path": demo_mod.sample_vault()}, data={"directory": tmp_path})
    demo = demo_mod.Demo(demo_mod.sample_vault(), tmp_path, tmp_path / "s.toml", settings)
    demo_mod.index(demo, lines.append)
    progress = [line for line in lines if "indexing notes:" in line]
    assert progress and progress[-1].startswith("  indexing notes: ")
    done, total = progress[-1].split(": ")[1].split()[0].split("/")
    assert done == total and int(total) > 10
    assert lines[-1].startswith("Indexed the vault:")
