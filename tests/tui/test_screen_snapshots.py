"""Every screen and dialog at 160x48 and 100x30 (issue 12: text cut at words, keys in the
footer, every criterion visible...). Run ids are made deterministic for the pictures."""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path

import pytest

from core.flows.extraction.graph import SPEC as EXTRACTION
from core.services import open_services
from core.settings import Settings
from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.script import FlowScript, candidates, relations
from tests.flows.extraction.test_runtime import make_vault
from tests.flows.rubric.notes import REVISED_BODY
from tests.flows.tutor.scripted import TutorScript
from tests.tui import test_lesson_screen as lesson
from tests.tui import test_normalization_screen as normalization
from tests.tui import test_rubric_screen as rubric
from tests.tui import test_tutor_screen as tutor
from tests.tui.helpers import seed_runs, settle, wait_for
from tests.tui.test_extraction_screen import GatedBackend, open_review
from tests.tui.test_extraction_screen import make_app as extraction_app
from tui.app import NoemaApp
from tui.widgets.confirm import ConfirmModal
from tui.widgets.model_activity import TICK_S
from tui.widgets.revision import RevisionModal

SIZES = [pytest.param((160, 48), id="160x48"), pytest.param((100, 30), id="100x30")]


@pytest.fixture(autouse=True)
def fixed_run_ids(monkeypatch):
    """Run ids (shown in dialogs and lines) the same on every run of the test."""
    counter = itertools.count(1)
    monkeypatch.setattr("core.store.runs.uuid.uuid4", lambda: uuid.UUID(int=next(counter)))
    monkeypatch.setattr("core.store.runs.now_iso", lambda: "2026-01-02T03:04:05+00:00")


@pytest.fixture(autouse=True)
def no_toasts(monkeypatch):
    """Toasts come when a run gets somewhere (a race with the keys pressed) and fade on their
    own; one drawn on a screen that a dialog then covers stays in its picture: none at all."""
    monkeypatch.setattr(NoemaApp, "notify", lambda self, *args, **kwargs: None)


@pytest.fixture(autouse=True)
def still_clock(monkeypatch):
    """A model call in the picture shows the same spinner frame and elapsed time every run."""
    from local_llm.activity import CallActivity

    monkeypatch.setattr("tui.widgets.model_activity.SPINNER", "◐")
    monkeypatch.setattr(CallActivity, "elapsed", lambda self, now=None: 1.0)


def _scroll_positions(app: NoemaApp) -> list[tuple[float, float]]:
    return [(w.scroll_x, w.scroll_y) for w in app.screen.query("*") if w.is_scrollable]


async def scrolls_settled(pilot, app: NoemaApp) -> None:
    """Wait until no widget scrolls and the picture itself stops changing (a scroll to the
    focused box can be scheduled after the first refresh and land late under load: the
    scrollbar thumb moved between runs). Two equal screenshots 0.25 s apart, three times in a
    row, is what "settled" means here."""
    last, same = None, 0
    for _ in range(60):
        await pilot.wait_for_scheduled_animations()
        picture = (_scroll_positions(app), app.export_screenshot())
        same = same + 1 if picture == last else 0
        if same >= 3:
            return
        last = picture
        await pilot.pause(0.25)


async def open_normalization(pilot, app: NoemaApp) -> None:
    """Normalization with its seeded review of three merges on screen."""
    await wait_for(pilot, lambda: app.services is not None)
    await pilot.press("n")
    await wait_for(pilot, lambda: len(normalization.rows(app)) == 3)


async def quiet(pilot, app: NoemaApp) -> None:
    """Toasts name random things and fade on their own: the picture is the screen itself,
    with cursors that do not blink."""
    await pilot.pause(0.2)
    for _ in range(40):  # focus lands after the screen's first refresh (late under load),
        focused = app.screen.focused  # and a text box draws its cursor once told it has it
        if focused is not None and focused.has_focus:
            break
        await pilot.pause(0.05)
    app.clear_notifications()
    for box in app.screen.query("Input, TextArea"):  # a blinking cursor: a different picture
        box.cursor_blink = False
    await pilot.wait_for_scheduled_animations()  # scrolling to the end, say, is over
    await pilot.pause(0.3)
    await scrolls_settled(pilot, app)
    if app.services is not None and not app.services.activity.calls():
        await pilot.pause(TICK_S + 0.2)  # the activity lines have drawn the model idle


async def still(pilot, app: NoemaApp) -> None:
    """Workers done and the picture no longer changing."""
    await settle(pilot, app)
    await scrolls_settled(pilot, app)


@pytest.mark.parametrize("size", SIZES)
def test_home(make_app, settings, snap_compare, size):
    seed_runs(settings)
    app = make_app()
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: still(pilot, app))


@pytest.mark.parametrize("size", SIZES)
def test_home_while_indexing(make_app, settings, snap_compare, size):
    from tui.widgets.index_bar import IndexBar

    seed_runs(settings)
    app = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        app.screen.query_one(IndexBar).show(1204, 5000, "03 - Sources/Ébauche — ½ 🍕.md")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_help(make_app, settings, snap_compare, size):
    seed_runs(settings)
    app = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await still(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_model(make_app, snap_compare, size):
    app = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("m")
        await still(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_extraction_review(tmp_path: Path, snap_compare, size):
    app, _root, _script = extraction_app(tmp_path)

    async def run_before(pilot) -> None:
        await open_review(pilot, app)
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_feedback_box_with_a_draft(tmp_path: Path, snap_compare, size):
    app, _root, _script = extraction_app(tmp_path)

    async def run_before(pilot) -> None:
        await open_review(pilot, app)
        await pilot.press("f", *"une los dos", "escape", "f")  # the draft comes back
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_quit_with_a_run_in_progress(tmp_path: Path, snap_compare, size):
    root, data = make_vault(tmp_path)
    settings = Settings(vault={"path": root}, data={"directory": data})
    backend = GatedBackend(FlowScript(candidates=candidates, relations=relations))
    services = open_services(settings, {"extraction": EXTRACTION}, backend=backend)
    services.vault.index.sync_files()
    app = NoemaApp(settings, services=services, vault_label="sample", watch=False)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: app.services is not None)
        run = services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        app.drive_run(run.id)
        await wait_for(pilot, lambda: backend.held > 0)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
    backend.gate.set()


@pytest.mark.parametrize("size", SIZES)
def test_normalization_review(tmp_path: Path, snap_compare, size):
    app, _ = normalization.make_app(tmp_path, seed_review=True)

    async def run_before(pilot) -> None:
        await open_normalization(pilot, app)
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_normalization_apply_diff(tmp_path: Path, snap_compare, size):
    app, _ = normalization.make_app(tmp_path, seed_review=True)

    async def run_before(pilot) -> None:
        await open_normalization(pilot, app)
        await pilot.press("A", "p")
        await wait_for(pilot, lambda: isinstance(app.screen, normalization.DiffModal))
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_lessons(tmp_path: Path, snap_compare, size):
    app, _ = lesson.make_app(tmp_path)

    async def run_before(pilot) -> None:
        screen = await lesson.generate(pilot, app)
        await wait_for(
            pilot,
            lambda: (
                lesson.finished(screen)
                and screen.query_one("#lessons").row_count == len(lesson.SAMPLE_LESSONS) + 1
            ),
            timeout=30,
        )
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_rubric_evaluation(tmp_path: Path, snap_compare, size):
    app, _ = rubric.make_app(tmp_path, [rubric.critical_evaluation(0.9)])

    async def run_before(pilot) -> None:
        await rubric.open_and_evaluate(pilot, app)
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_rubric_revision(tmp_path: Path, snap_compare, size):
    responses = [
        rubric.critical_evaluation(0.9),
        {"body": REVISED_BODY, "summary": "example added"},
    ]
    app, _ = rubric.make_app(tmp_path, responses)

    async def run_before(pilot) -> None:
        await rubric.open_and_evaluate(pilot, app)
        await pilot.press("r", *"an example", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RevisionModal))
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_tutor_picker(tmp_path: Path, snap_compare, size):
    app = tutor.make_app(tmp_path, TutorScript())

    async def run_before(pilot) -> None:
        await tutor.open_tutor(pilot, app)
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_tutor_chat(tmp_path: Path, snap_compare, size):
    app = tutor.make_app(tmp_path, TutorScript(["partial"]))

    async def run_before(pilot) -> None:
        screen = await tutor.first_question(pilot, app)
        screen.query_one("#answer").value = "Retrieval beats rereading"
        await pilot.press("enter")
        await wait_for(pilot, tutor.turns_done(screen, 3))
        await pilot.press("ctrl+t")
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_tutor_chat_in_markdown(tmp_path: Path, snap_compare, size):
    app = tutor.make_app(tmp_path, tutor.MarkdownTutor(["partial"]))

    async def run_before(pilot) -> None:
        await tutor.first_question(pilot, app)
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_tutor_long_answer_being_typed(tmp_path: Path, snap_compare, size):
    app = tutor.make_app(tmp_path, TutorScript(["partial"]))

    async def run_before(pilot) -> None:
        await tutor.first_question(pilot, app)
        await pilot.press(*"1/2 es mayor:", "ctrl+j", *"- 2 trozos grandes", "ctrl+j", *"- no 4")
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_tutor_export(tmp_path: Path, snap_compare, size, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = tutor.make_app(tmp_path, TutorScript(["partial"]))

    async def run_before(pilot) -> None:
        await tutor.first_question(pilot, app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.query("#export-path"))
        app.screen.query_one("#export-path").value = "/tmp/sesión.md"
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_normalization_live(tmp_path: Path, snap_compare, size):
    from tui.widgets.normalization_live import NormalizationLive

    app, _ = normalization.make_app(tmp_path, seed_review=True)

    async def run_before(pilot) -> None:
        await open_normalization(pilot, app)
        live = app.screen.query_one(NormalizationLive)
        for n, trend in enumerate(([6], [6, 4], [6, 4, 1]), start=1):
            live.apply(
                {
                    "phase": "validation",
                    "iteration": n,
                    "merges_found": trend[-1],
                    "total_merges": sum(trend),
                    "weak_count": n,
                    "new_unique_merges_trend": trend,
                    "agent_activity": f"Evaluator: iteration {n}",
                    "latest_merges": [{"a_name": f"Concept {n}", "b_name": f"Concepts {n}"}],
                    "latest_weak": [
                        {"a_name": f"Part {n}", "b_name": "Whole", "reason": "component"}
                    ],
                }
            )
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
