"""Issue 12, "No lost or stranded work": drafts of typed text survive esc, leaving a screen and
quitting; `q` with work in progress asks first, and a run interrupted by quitting is shown as
interrupted and resumes."""

from __future__ import annotations

import json
from pathlib import Path

from core.flows.extraction.graph import SPEC
from core.services import open_services
from core.settings import Settings
from core.store import Store
from core.store.runs import INTERRUPTED, RunsRepo
from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import FlowScript, candidates, relations
from tests.flows.extraction.test_runtime import make_vault
from tests.flows.tutor.scripted import TutorScript
from tests.tui.helpers import wait_for
from tests.tui.test_extraction_screen import GatedBackend, make_app, open_review
from tests.tui.test_tutor_screen import first_question
from tests.tui.test_tutor_screen import make_app as make_tutor_app
from tui.app import NoemaApp
from tui.widgets import RunsTable
from tui.widgets.confirm import ConfirmModal
from tui.widgets.evaluation import TextModal


def modal_text(app: NoemaApp) -> str:
    assert isinstance(app.screen, TextModal)
    return app.screen.query_one("#modal-text").text


async def test_esc_in_the_feedback_box_keeps_the_typed_text_until_sent(tmp_path: Path) -> None:
    app, _root, script = make_app(tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await open_review(pilot, app)
        await pilot.press("f")
        await pilot.press(*"une los dos conceptos")
        await pilot.press("escape")
        assert app.screen is screen and script.count("feedback") == 0  # nothing was sent
        await pilot.press("f")
        assert modal_text(app) == "une los dos conceptos"  # the draft is back
        app.drafts.flush()  # (written by the drafts' own thread, moments after the change)
        drafts = json.loads((tmp_path / "data" / "drafts.json").read_text(encoding="utf-8"))
        assert drafts == {f"extraction.feedback:{screen.run_id}": "une los dos conceptos"}
        await pilot.press("f8")  # discarded on purpose
        assert modal_text(app) == ""
        await pilot.press("escape", "f")
        assert modal_text(app) == ""
        await pilot.press(*"otra idea", "ctrl+s")  # sent: the draft is gone
        await wait_for(pilot, lambda: script.count("feedback") == 1)
        assert app.drafts.get(f"extraction.feedback:{screen.run_id}") is None


async def test_the_tutor_answer_being_typed_survives_leaving_the_screen(tmp_path: Path) -> None:
    app = make_tutor_app(tmp_path, TutorScript(["right"], steps=2))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await first_question(pilot, app)
        session = screen.session_id
        screen.query_one("#answer").focus()
        await pilot.press(*"la mitad, creo")
        await pilot.press("escape")  # back home: the session waits
        await pilot.pause()
        app.open_session(session)
        await wait_for(pilot, lambda: app.screen is not screen and app.screen.session_id == session)
        reopened = app.screen
        await wait_for(
            pilot,
            lambda: (
                bool(reopened.query("#answer"))
                and reopened.query_one("#answer").value == "la mitad, creo"
            ),
        )


async def test_q_during_a_run_asks_and_the_run_is_left_interrupted_not_running(
    tmp_path: Path,
) -> None:
    root, data = make_vault(tmp_path)
    settings = Settings(vault={"path": root}, data={"directory": data})
    backend = GatedBackend(FlowScript(candidates=candidates, relations=relations))
    services = open_services(settings, {"extraction": SPEC}, backend=backend)
    services.vault.index.sync_files()
    app = NoemaApp(settings, services=services, watch=False)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        run = services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        app.drive_run(run.id)
        await wait_for(pilot, lambda: backend.held > 0)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        body = str(app.screen.query_one("#confirm-body").render())
        assert "extraction of 03 - Sources" in body and run.id[:8] in body
        await pilot.press("n")  # stay: nothing stops
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, ConfirmModal)
        assert run.id in app.driving
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await pilot.pause()
    store = Store(settings.store_path)  # the app closed its services when it quit
    try:
        record = RunsRepo(store).get(run.id)
    finally:
        store.close()
    assert (record.status, record.error, record.interrupted) == ("queued", INTERRUPTED, True)

    # the next start shows it as interrupted, and it resumes from its checkpoint to the review
    services = open_services(
        settings,
        {"extraction": SPEC},
        backend=GatedBackend(FlowScript(candidates=candidates, relations=relations)),
    )
    app = NoemaApp(
        settings.model_copy(
            update={"tui": settings.tui.model_copy(update={"autostart_queued_runs": False})}
        ),
        services=services,
        watch=False,
    )
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        table = app.screen.query_one(RunsTable)
        await wait_for(pilot, lambda: run.id in table.records)
        assert "interrupted" in str(table.get_row(run.id)[0])
        services.llm.backend().gate.set()
        await pilot.press("s")
        await wait_for(
            pilot, lambda: services.runtime.runs.get(run.id).status == "awaiting_review", timeout=30
        )


async def test_q_with_nothing_in_progress_quits_at_once(tmp_path: Path) -> None:
    app, _root, _script = make_app(tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)
    assert app.return_code == 0


async def test_an_interrupted_tutor_turn_waits_for_the_learner_instead_of_running_alone(
    tmp_path: Path,
) -> None:
    """At start-up the app resumes interrupted runs by itself, but not a tutoring session: its
    turn goes on when the learner opens it (found walking issue 12: the turn ran headless and
    the reopened screen ran it a second time)."""
    from core.flows.tutor.session import curriculum, start_session
    from tests.tui.helpers import settle

    app = make_tutor_app(tmp_path, TutorScript(["right"], steps=2))
    services = app._injected
    lesson = next(x for x in curriculum(services.vault, services.store) if x.concepts)
    session = start_session(services.runtime, lesson, app.settings)
    runs = services.runtime.runs  # start_session marked it running; then the process quit
    runs.mark_interrupted(session.id)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.services is not None and app.model_ok)
        await settle(pilot, app)
        assert session.id not in app.driving
        assert runs.get(session.id).status == "queued"
