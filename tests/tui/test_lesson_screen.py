"""The lessons screen inside the app shell with scripted models: Pilot and a snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter

from tests.flow_harness import FlowHarness
from tests.flows.lesson.script import CONCEPT, GOOD, SAMPLE_VAULT, lesson_harness
from tests.tui.helpers import wait_for
from tui.app import NoemaApp
from tui.screens.lesson import LessonScreen
from tui.widgets.lesson_review import SelfReviewPanel
from tui.widgets.lesson_stepper import LessonStepper

SAMPLE_LESSONS = {p.name for p in (SAMPLE_VAULT / "09 - Lessons").glob("*.md")}
"""The demo vault's own lessons (a planted bad draft); the list shows them too."""


def make_app(tmp_path: Path, **lesson: Any) -> tuple[NoemaApp, FlowHarness]:
    harness = lesson_harness(tmp_path, **lesson)
    harness.services.vault.index.sync()
    app = NoemaApp(harness.settings, services=harness.services, watch=False)
    app.animation_level = "none"
    return app, harness


async def generate(pilot, app: NoemaApp) -> LessonScreen:
    await wait_for(pilot, lambda: app.services is not None)
    await pilot.press("l")
    screen = app.screen
    assert isinstance(screen, LessonScreen)
    concept = screen.query_one("#concept")
    await wait_for(pilot, lambda: concept.suggester is not None)
    concept.focus()
    await pilot.press(*"práctica de r")
    await pilot.press("right")  # accept the suggestion from the concepts in the index
    assert concept.value == CONCEPT
    await pilot.click("#generate")
    return screen


def generated(harness: FlowHarness) -> list[Path]:
    """The lesson notes the test wrote (not the demo vault's own)."""
    folder = harness.root / "09 - Lessons"
    return [p for p in folder.glob("*.md") if p.name not in SAMPLE_LESSONS]


def finished(screen: LessonScreen) -> bool:
    return screen.query_one(LessonStepper).states == ["done"] * 6 and bool(
        screen.state_values.get("status")
    )


async def test_generate_shows_steps_review_and_judge(tmp_path: Path) -> None:
    app, harness = make_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(
            pilot,
            lambda: (
                finished(screen)
                and screen.query_one("#lessons").row_count == len(SAMPLE_LESSONS) + 1
            ),
        )
        assert "## Parte 1" in screen.query_one("#preview").text
        assert "Passed" in str(screen.query_one("#sr-badge").render())
        judge = str(screen.query_one("#judge").render())
        assert "ACCEPT" in judge and "Objective alignment" in judge
    notes = generated(harness)
    assert frontmatter.loads(notes[0].read_text(encoding="utf-8"))["status"] == "accepted"


async def test_escalation_accept_key(tmp_path: Path) -> None:
    app, harness = make_app(tmp_path, max_regenerations=0, max_judge_fixes=0)
    harness.script.scores = {"judge-a": [0.2], "judge-b": [0.2], "judge-c": [0.2]}
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        judge = screen.query_one("#judge")
        await wait_for(
            pilot, lambda: screen.payload is not None and "ESCALATE" in str(judge.render())
        )
        assert screen.query_one(LessonStepper).states[-1] == "waiting"
        await pilot.press("a")
        await wait_for(pilot, lambda: screen.state_values.get("status") == "accepted")


async def test_self_fix_diff_and_issue_jumps_to_section(tmp_path: Path) -> None:
    app, harness = make_app(tmp_path)
    harness.script.sections = [
        f"{GOOD[0]}\n\n{GOOD[1]}",
        f"Sure, here is the part. {GOOD[2]}\n\n{GOOD[3]}",
    ]
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(pilot, lambda: finished(screen))
        badge = str(screen.query_one("#sr-badge").render())
        assert "Automatic fixes applied" in badge
        assert "-" in str(screen.query_one("#sr-diff").render())
        panel = screen.query_one(SelfReviewPanel)
        assert panel.issues and panel.issues[0]["location"] == "Parte 2"
        options = screen.query_one("#sr-issues")
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        preview = screen.query_one("#preview")
        await wait_for(pilot, lambda: preview.marked is not None)
        assert preview.marked.source.startswith("## Parte 2")  # the section, rendered
        assert preview.marked.has_class("-jumped")  # marked
        assert preview.content_region.contains_region(preview.marked.region)  # and in view


async def test_send_to_judge_and_edit_keys_on_a_written_lesson(tmp_path: Path) -> None:
    app, harness = make_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(
            pilot,
            lambda: (
                finished(screen)
                and screen.query_one("#lessons").row_count == len(SAMPLE_LESSONS) + 1
            ),
        )
        first_run = screen.run_id
        judged = len(harness.models_asked("judge"))
        screen.payload = None
        await pilot.press("j")  # a review run of the written note: checks, self-review, judges
        await wait_for(
            pilot,
            lambda: (
                screen.run_id != first_run
                and finished(screen)
                and screen.state_values.get("mode") == "review"
            ),
        )
        assert len(harness.models_asked("judge")) == judged + 1
        await pilot.press("E")
        area = app.screen.query_one("#modal-text")
        area.text = area.text.replace("## Parte 2", "## Parte dos")
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                finished(screen)
                and "## Parte dos" in screen.query_one("#preview").text
                and screen.state_values.get("status") == "accepted"
            ),
        )
    notes = generated(harness)
    assert len(notes) == 1 and "## Parte dos" in notes[0].read_text(encoding="utf-8")


async def test_the_planted_bad_lesson_is_caught_before_the_judges(tmp_path: Path) -> None:
    """Issue 7's "Done when": the demo vault's bad draft, picked from the list and sent to
    review with `j`, is stopped by the free checks; no self-review, no judge."""
    app, harness = make_app(tmp_path)
    path = "09 - Lessons/Práctica de recuperación (borrador).md"
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        table = screen.query_one("#lessons")
        await wait_for(pilot, lambda: table.row_count == len(SAMPLE_LESSONS))
        table.focus()
        table.move_cursor(row=table.get_row_index(path))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.path == path)
        await pilot.press("j")
        await wait_for(pilot, lambda: screen.state_values.get("status") == "needs_regeneration")
        await wait_for(pilot, lambda: table.get_row(path)[2] == "regenerate")
    assert harness.models_asked("judge") == [] and harness.script.count("review") == 0
    meta = frontmatter.loads((harness.root / path).read_text(encoding="utf-8"))
    assert meta["status"] == "needs_regeneration"


async def test_review_screen_from_the_runs_table_focuses_the_review(tmp_path: Path) -> None:
    """Opened on a waiting run: a/r/j/e act (the concept input does not hold the focus) and
    the stepper shows what the run did before the screen opened."""
    app, harness = make_app(tmp_path, max_regenerations=0, max_judge_fixes=0)
    harness.script.scores = {"judge-a": [0.2], "judge-b": [0.2], "judge-c": [0.2]}
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(
            pilot,
            lambda: (
                app.services.runtime.runs.get(screen.run_id).status == "awaiting_review"
                and screen.payload is not None
            ),
        )
        message = screen.query_one(LessonStepper).message
        assert message
        app.pop_screen()
        app.open_run(app.services.runtime.runs.get(screen.run_id))
        await wait_for(
            pilot, lambda: isinstance(app.screen, LessonScreen) and app.screen.payload is not None
        )
        opened = app.screen
        assert opened is not screen
        await wait_for(pilot, lambda: app.focused is opened.query_one("#side"), 3)
        stepper = opened.query_one(LessonStepper)
        assert stepper.message == message and stepper.states[-1] == "waiting"
        await pilot.press("a")
        await wait_for(pilot, lambda: opened.state_values.get("status") == "accepted")
        assert opened.query_one("#concept").value == ""


# -- issue 12: keys that act, and `j` on a finished run -------------------------------------------


async def test_the_screen_opens_with_the_keys_acting_not_typing(tmp_path: Path) -> None:
    from textual.widgets import Input
    from textual.widgets._footer import FooterKey

    from tui.screens.help import HelpScreen
    from tui.screens.home import HomeScreen

    app, _harness = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("l")
        screen = app.screen
        await pilot.pause()
        concept = screen.query_one("#concept")
        assert not isinstance(app.focused, Input)
        shown = {key.key for key in screen.query(FooterKey)}
        assert {"question_mark", "h", "q"} <= shown
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        assert concept.value == ""  # nothing was typed into the field


async def test_enter_on_a_finished_run_opens_its_lesson_and_j_judges_it_again(
    tmp_path: Path,
) -> None:
    app, harness = make_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(pilot, lambda: finished(screen), timeout=30)
        done = app.services.runtime.runs.get(screen.run_id)
        assert done.status == "done"
        await pilot.press("h")
        app.open_run(done)  # Enter on it in the runs table
        await wait_for(pilot, lambda: isinstance(app.screen, LessonScreen) and app.screen.path)
        opened = app.screen
        assert opened is not screen and "## " in opened.query_one("#preview").text
        judged = len(harness.models_asked("judge"))
        await pilot.press("j")
        await wait_for(
            pilot,
            lambda: (
                opened.run_id != done.id
                and finished(opened)
                and opened.state_values.get("mode") == "review"
            ),
            timeout=30,
        )
        assert len(harness.models_asked("judge")) > judged


async def test_escalation_reject_key(tmp_path: Path) -> None:
    """X rejects an escalated lesson in the TUI (main had reject only in the CLI)."""
    app, harness = make_app(tmp_path, max_regenerations=0, max_judge_fixes=0)
    harness.script.scores = {"judge-a": [0.2], "judge-b": [0.2], "judge-c": [0.2]}
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(pilot, lambda: screen.payload is not None)
        screen.query_one("#side").focus()
        await pilot.press("X")
        await wait_for(pilot, lambda: screen.state_values.get("status") == "rejected")
    [note] = generated(harness)
    assert frontmatter.loads(note.read_text(encoding="utf-8"))["status"] == "rejected"


async def test_language_sections_and_objectives_reach_the_run(tmp_path: Path) -> None:
    """Main's screen had only the concept field: language, section count and objectives
    were CLI-only."""
    app, harness = make_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("l")
        screen = app.screen
        for field, text in (
            ("#concept", CONCEPT),
            ("#language", "en"),
            ("#sections", "3"),
            ("#objectives", "Explicar el efecto; Aplicarlo al estudio"),
        ):
            screen.query_one(field).value = text
        await pilot.click("#generate")
        await wait_for(pilot, lambda: screen.run_id is not None)
        run = app.services.runtime.runs.get(screen.run_id)
        assert run.input["language"] == "en" and run.input["sections"] == 3
        assert run.input["objectives"] == ["Explicar el efecto", "Aplicarlo al estudio"]
        await wait_for(pilot, lambda: finished(screen))
        plan_calls = [c for c in harness.backend.calls if c.node == "planner"]
        assert "English" in plan_calls[0].messages[0]["content"]
        assert "Aplicarlo al estudio" in plan_calls[0].messages[-1]["content"]


async def test_the_savings_report_opens_from_the_lessons_screen(tmp_path: Path) -> None:
    app, _harness = make_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        await wait_for(pilot, lambda: finished(screen))
        screen.query_one("#side").focus()
        await pilot.press("s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReportModal")
        text = str(app.screen.query_one("#report-text").render())
        assert "1 lessons:" in text and "judge tokens spent" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)


def test_the_badge_says_not_reviewed_and_the_judge_panel_says_one_model() -> None:
    from tui.widgets.lesson_review import badge, judge_text

    review = {
        "passed": False,
        "decision": "FLAG_TO_JUDGE",
        "not_reviewed": "gemma3-270m gave no valid answer after 3 attempts",
        "issues": [],
    }
    text = str(badge(review))
    assert "Not reviewed" in text and "no valid answer after 3" in text and "Passed" not in text
    note = "one model serves every judge role: the second judge repeats the first one's opinion"
    assert note in str(judge_text(None, [], note))


async def test_the_judge_step_shows_its_tokens_not_zero(tmp_path: Path, monkeypatch) -> None:
    """The stepper said "verdict: escalate · 0 tokens" after the judges had spent thousands,
    and while a judge worked the line still held the self-review's "0 tokens" (issue-12 walk)."""
    app, harness = make_app(tmp_path, max_regenerations=0, max_judge_fixes=0)
    harness.script.scores = {"judge-a": [0.2], "judge-b": [0.2], "judge-c": [0.2]}
    said: list[str] = []
    apply = LessonStepper.apply

    def recording(stepper: LessonStepper, event: Any) -> None:
        apply(stepper, event)
        said.append(stepper.message)

    monkeypatch.setattr(LessonStepper, "apply", recording)  # from the run's first event
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await generate(pilot, app)
        stepper = screen.query_one(LessonStepper)
        await wait_for(pilot, lambda: screen.payload is not None)
        judges = [m for m in said if m.startswith("judge_")]
        assert judges and judges[0] == "judge_primary: the judge is reading the lesson…"
        total = app.services.store.query_one(
            "SELECT SUM(prompt_tokens + completion_tokens) FROM traces WHERE run_id = ?"
            " AND node LIKE 'judge_%'",
            (screen.run_id,),
        )[0]
        assert total > 0
        assert stepper.message == f"verdict: escalate · judges {total:,} tokens"
        assert not any(m.endswith("· 0 tokens") for m in said[said.index(judges[0]) :])
        # each phase gives its own tokens: the expander's (reported from the assembler node)
        # are not the assembler's
        assert any(m.startswith("assembler: ok · 0 tokens") for m in said)


async def test_a_sent_form_gives_the_keys_back(tmp_path: Path) -> None:
    """Walk: after `enter` in the concept field the focus stayed there through the run and
    after it failed, so the footer showed only `esc Back` and `h`, `q`, `?` typed."""
    from textual.widgets import Input
    from textual.widgets._footer import FooterKey

    app, _harness = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("l")
        screen = app.screen
        await pilot.press("g")  # New: to the concept field
        assert isinstance(app.focused, Input) and app.focused.id == "concept"
        await pilot.press(*CONCEPT, "enter")
        await wait_for(pilot, lambda: screen.run_id is not None)
        await pilot.pause()
        assert not isinstance(app.focused, Input)
        # the footer recomposes after the focus moved: under load that takes more than a pause
        await wait_for(
            pilot,
            lambda: {"question_mark", "h", "q"} <= {key.key for key in screen.query(FooterKey)},
        )
