"""The extraction screen inside the real app shell, with a scripted model: Pilot and snapshots."""

from __future__ import annotations

import asyncio
from pathlib import Path

import frontmatter

from core.flows.extraction.graph import SPEC
from core.services import open_services
from core.settings import Settings
from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import (
    SCHEMA_KINDS,
    ConcurrencyBackend,
    FlowScript,
    candidates,
    relations,
)
from tests.flows.extraction.test_runtime import make_vault
from tests.tui.helpers import shown, wait_for
from tui.app import NoemaApp
from tui.screens.extraction import ExtractionScreen
from tui.widgets import RunsTable
from tui.widgets.extraction_review import ReviewTable
from tui.widgets.extraction_sources import SourcesTable
from tui.widgets.extraction_steps import ExtractionSteps


def make_app(tmp_path: Path, script: FlowScript | None = None) -> tuple[NoemaApp, Path, FlowScript]:
    root, data = make_vault(tmp_path)
    # the scripted concepts are Spanish: so is the vault's note language
    settings = Settings(vault={"path": root, "language": "es"}, data={"directory": data})
    script = script or FlowScript(candidates=candidates, relations=relations)
    services = open_services(settings, {"extraction": SPEC}, backend=ConcurrencyBackend(script))
    services.vault.index.sync_files()
    app = NoemaApp(settings, services=services, watch=False)
    app.animation_level = "none"
    return app, root, script


async def open_review(pilot, app: NoemaApp) -> ExtractionScreen:
    await wait_for(pilot, lambda: app.services is not None)
    await pilot.press("x")
    screen = app.screen
    assert isinstance(screen, ExtractionScreen)
    table = screen.query_one(SourcesTable)
    await wait_for(pilot, lambda: table.row_count == 1)
    assert table.rows_by_path[SOURCE][2] == "unprocessed"
    table.focus()
    await pilot.press("s")
    await wait_for(pilot, lambda: screen.review is not None)
    return screen


async def test_extract_drop_and_approve_with_the_keyboard(tmp_path: Path) -> None:
    app, root, _script = make_app(tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await open_review(pilot, app)
        items = screen.query_one(ReviewTable)
        assert items.row_count >= 4  # two concepts, a relation, quote attributions
        steps = screen.query_one("#steps").render()
        assert "1.1a" in str(steps) and "1.2" in str(steps)
        assert "Efecto del espaciado" in shown(screen.query_one("#detail"))
        assert "unattributed [ms-retrieval]" in str(screen.query_one("#notes").render())
        # drop the first concept, restore it, drop it again, then move down and approve
        await pilot.press("d")
        assert screen.dropped and "DROPPED" in shown(screen.query_one("#detail"))
        await pilot.press("d")
        assert not screen.dropped
        await pilot.press("d")
        await pilot.press("down")
        assert "Práctica intercalada" in shown(screen.query_one("#detail"))
        await pilot.press("a")
        await wait_for(pilot, lambda: "Written notes" in str(screen.query_one("#outcome").render()))
        outcome = str(screen.query_one("#outcome").render())
        assert "08 - Ideas/Práctica intercalada.md" in outcome
        assert outcome.startswith("Committed.\nWritten notes:")  # said once, not twice
        assert not str(screen.query_one("#notes").render())  # the review's warnings are gone
        table = screen.query_one(SourcesTable)
        await wait_for(
            pilot, lambda: table.rows_by_path.get(SOURCE, ("", "", ""))[2] == "processed"
        )
    assert not (root / "08 - Ideas/Efecto del espaciado.md").exists()
    post = frontmatter.loads(
        (root / "08 - Ideas/Práctica intercalada.md").read_text(encoding="utf-8")
    )
    assert post["entity_type"] == "Concept"
    assert frontmatter.loads((root / SOURCE).read_text(encoding="utf-8"))["processed_date"]


async def test_feedback_then_abort(tmp_path: Path) -> None:
    app, root, script = make_app(tmp_path)
    before = (root / SOURCE).read_text(encoding="utf-8")
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await open_review(pilot, app)
        await pilot.press("f")
        await pilot.press(*"une los dos")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.review is not None and screen.review.round == 1)
        assert script.count("feedback") == 1 and "une los dos" in script.prompts["feedback"][0]
        await pilot.press("X")
        await wait_for(pilot, lambda: "aborted" in str(screen.query_one("#outcome").render()))
    assert (root / SOURCE).read_text(encoding="utf-8") == before


async def test_a_source_dropped_into_the_vault_is_extracted_reviewed_and_committed(
    tmp_path: Path,
) -> None:
    """The watcher queues the new source, the app starts the run by itself, the run stops
    at its review; the review is opened from the run and approved with the keyboard."""
    app, root, _script = make_app(tmp_path)
    (root / SOURCE).write_text(
        (root / SOURCE)
        .read_text(encoding="utf-8")
        .replace("category: book\n", "category: book\nprocessed_date: 2026-01-01\n"),
        encoding="utf-8",
    )
    app._injected.vault.index.sync_files()
    app.watch_vault = True
    app.settings.vault.watch_debounce_ms = 50
    new = "03 - Sources/Nuevo.md"
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.ingest is not None)
        text = (
            (root / SOURCE).read_text(encoding="utf-8").replace("processed_date: 2026-01-01\n", "")
        )
        (root / new).write_text(text.replace("Make It Stick", "Nuevo"), encoding="utf-8")
        runs = app.services.runtime.runs

        def waiting() -> list:
            return [
                r for r in runs.list(status="awaiting_review", flow="extraction") if r.target == new
            ]

        await wait_for(pilot, lambda: bool(waiting()), timeout=30)
        app.open_run(waiting()[0])
        screen = app.screen
        assert isinstance(screen, ExtractionScreen)
        await wait_for(pilot, lambda: screen.review is not None)
        assert screen.review.source == new
        await pilot.press("a")
        await wait_for(pilot, lambda: "Written notes" in str(screen.query_one("#outcome").render()))
        await app.workers.wait_for_complete()
    assert frontmatter.loads((root / new).read_text(encoding="utf-8"))["processed_date"]


class GatedBackend(ConcurrencyBackend):
    """Holds every duplicate-detection call (1.1b) until `gate` is set: a run held mid-way."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.held, self.gate = 0, asyncio.Event()

    async def complete(self, messages, *, json_schema, config, schema_name="answer"):
        if SCHEMA_KINDS.get(schema_name) == "duplicate":
            self.held += 1
            await self.gate.wait()
        return await super().complete(
            messages, json_schema=json_schema, config=config, schema_name=schema_name
        )


async def test_enter_on_a_running_run_opens_the_screen_with_its_progress_so_far(
    tmp_path: Path,
) -> None:
    """A run started from home, opened mid-way with Enter: the steps it finished before the
    screen opened are shown done (replayed from the app's log), and the rest follows live."""
    root, data = make_vault(tmp_path)
    # the scripted concepts are Spanish: so is the vault's note language
    settings = Settings(vault={"path": root, "language": "es"}, data={"directory": data})
    backend = GatedBackend(FlowScript(candidates=candidates, relations=relations))
    services = open_services(settings, {"extraction": SPEC}, backend=backend)
    services.vault.index.sync_files()
    app = NoemaApp(settings, services=services, watch=False)
    app.animation_level = "none"
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        run = services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        app.drive_run(run.id)
        await wait_for(pilot, lambda: backend.held > 0)
        home = app.screen
        await wait_for(pilot, lambda: home.query_one(RunsTable).selected_run is not None)
        assert home.query_one(RunsTable).selected_run.status == "running"
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, ExtractionScreen) and screen.run_id == run.id
        steps = screen.query_one(ExtractionSteps)
        assert steps.states["load"] == "done" and steps.states["1.1a"] == "done"
        assert steps.states["1.1b"] == "running"
        backend.gate.set()
        await wait_for(pilot, lambda: screen.review is not None)
        # the two candidates' duplicate checks were one merged call: counted once, as two
        finished = [e for e in app.run_log(run.id) if getattr(e, "node", "") == "detect_duplicates"]
        detections = [e for e in finished if type(e).__name__ == "NodeFinished"]
        assert len(detections) == 1 and steps.finished["1.1b"] == 2
        assert steps.counts["1.1b"] == "2/2"
        assert steps.states["1.2"] == "done" and steps.states["2.1"] == "waiting"


async def test_a_run_this_app_did_not_drive_shows_its_steps_from_the_checkpoint(
    tmp_path: Path,
) -> None:
    """A run that reached its review before this app started (no events in the app's log):
    the steps it ran are read from its checkpoint, not shown as never started."""
    app, _root, _script = make_app(tmp_path)
    # the app must not pick the queued run up itself (it would, once the model answers)
    app.settings.tui.autostart_queued_runs = False
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        runtime = app.services.runtime
        run = runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        await runtime.run_until_pause(run.id)  # driven without the app: nothing logged
        assert not app.run_log(run.id)
        app.open_run(runtime.runs.get(run.id))
        screen = app.screen
        assert isinstance(screen, ExtractionScreen)
        await wait_for(pilot, lambda: screen.review is not None)
        steps = screen.query_one(ExtractionSteps)
        await wait_for(pilot, lambda: steps.states["1.1a"] == "done")
        for step in ("load", "1.1b", "1.1d", "1.1e", "1.2"):
            assert steps.states[step] == "done", step
        # the sample graph fits one relation pool: no queries were needed, and it shows
        assert steps.states["1.1c"] == "pending" and steps.shown_state("1.1c") == "skipped"
        assert steps.states["2.1"] == "waiting" and steps.states["3.1"] == "pending"
        assert steps.finished["1.1b"] == 2  # one duplicate detection per candidate


async def test_review_table_shows_whole_details_after_the_feedback_dialog(tmp_path: Path) -> None:
    """After feedback the steps grow, a scrollbar narrows the review table: the item column
    gives way (ending in "…") so the last column is never cut to stray first letters."""
    app, _root, _script = make_app(tmp_path)
    async with app.run_test(size=(113, 30)) as pilot:
        screen = await open_review(pilot, app)
        await pilot.press("f")
        await pilot.press(*"une los dos")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.review is not None and screen.review.round == 1)
        await pilot.pause(0.2)
        table = screen.query_one(ReviewTable)
        lines = [table.render_line(y).text for y in range(1, table.row_count + 1)]
        # the sample graph fits one relation pool: each new concept is offered every concept
        inverse = "inverse HAS_PART"
        details = ["1 quote(s)", "1 quote(s)", inverse, inverse, "new", "new"]
        assert table.row_count == len(details)
        for line, detail in zip(lines, details, strict=True):
            assert line.rstrip().endswith(detail), line
        assert any("…" in line for line in lines)
        assert (
            table.virtual_size.width <= table.scrollable_content_region.width
        )  # no sideways scroll


async def test_approving_a_review_that_keeps_nothing_asks_first(tmp_path: Path) -> None:
    """Every concept dropped: `a` asks (approving would only mark the source processed);
    `n` goes back to the review with nothing written."""
    from tui.widgets.confirm import ConfirmModal

    app, root, _script = make_app(tmp_path)
    before = (root / SOURCE).read_text(encoding="utf-8")
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await open_review(pilot, app)
        items = screen.query_one(ReviewTable)
        concepts = [c.id for c in screen.review.concepts]
        for row in range(items.row_count):
            items.move_cursor(row=row)
            if items.current_key() in {f"concept|{cid}" for cid in concepts}:
                await pilot.press("d")
        assert {f"concept|{cid}" for cid in concepts} <= screen.dropped
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "marks the source processed" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.review is not None  # still reviewing
        assert app.services.runtime.runs.get(screen.run_id).status == "awaiting_review"
    assert (root / SOURCE).read_text(encoding="utf-8") == before


async def test_a_processed_source_asks_then_extracts_again(tmp_path: Path) -> None:
    """s on a processed source asks; yes starts a new extraction (main only said 'already
    processed' and nothing could extract it again)."""
    app, root, script = make_app(tmp_path)
    note = root / SOURCE
    note.write_text(
        note.read_text(encoding="utf-8").replace(
            "category: book\n", "category: book\nprocessed_date: 2024-05-01T10:00:00\n"
        ),
        encoding="utf-8",
    )
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        app.services.vault.index.sync_files()
        await pilot.press("x")
        screen = app.screen
        table = screen.query_one(SourcesTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        assert table.rows_by_path[SOURCE][2] == "processed"
        table.focus()
        await pilot.press("s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
        await pilot.press("n")  # no: nothing starts
        await pilot.pause(0.2)
        assert app.screen is screen and script.count("candidates") == 0
        await pilot.press("s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.review is not None)
        assert [c.title for c in screen.review.concepts] == [
            "Efecto del espaciado",
            "Práctica intercalada",
        ]


async def test_an_empty_review_offers_no_approve(tmp_path: Path) -> None:
    app, _root, _script = make_app(tmp_path, FlowScript())
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await open_review(pilot, app)
        assert screen.review is not None and screen.review.concepts == []
        assert screen.check_action("approve", ()) is False
        assert screen.check_action("feedback", ()) is True
        outcome = str(screen.query_one("#outcome").render())
        assert "Nothing to commit yet" in outcome and "a: approve" not in outcome
        await pilot.press("a")  # disabled: the run stays at its review
        await pilot.pause(0.2)
        assert screen.review is not None
        assert app.services.runtime.runs.get(screen.run_id).status == "awaiting_review"


def test_a_new_concepts_fields_render_as_markdown() -> None:
    from core.flows.extraction.state import ReviewConcept
    from tui.widgets.extraction_review import concept_detail

    concept = {
        "title": "Efecto del espaciado",
        "short_summary": "Repasar espaciado retiene más.",
        "summary": "",
        "concept": "El **repaso espaciado** supera al masivo:\n- día 1\n- día 3",
        "analysis": "# No es un título\nSe ve en `Ebbinghaus`.",
        "rationale": "cita [q1]",
        "quotes": [{"id": "q1", "text": "Spacing beats cramming."}],
    }
    lines = shown(concept_detail(ReviewConcept.model_validate(concept)), width=60).splitlines()
    assert lines[:3] == [
        "Efecto del espaciado",
        "Repasar espaciado retiene más.",
        "Concepto: El repaso espaciado supera al masivo:",
    ]
    assert " • día 1" in lines and "Se ve en Ebbinghaus." in lines
    assert not any("**" in line or line.startswith("#") for line in lines)
    assert "Resumen:" not in "\n".join(lines)  # an empty field is left out
    assert lines[-1] == "> [q1] Spacing beats cramming."
