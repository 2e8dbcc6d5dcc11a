"""The lessons screen: the lessons with their status, generation from a concept with a live
six-step stepper, the self-review panel, the judges' scores, and accept / regenerate / send to
the judges / edit.

Runs are driven by the app (`app.drive_run` / `app.resume_run`); this screen follows the
`RunUpdate` messages of its own run. Reached from home with `l`, and from a lesson run that
waits at an escalation in the runs table (`review_screen`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import frontmatter
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Button, DataTable, Footer, Header, Input, Static

from core.curriculum import list_concepts
from core.events import Done, Failed, Interrupted
from core.flows.lesson.document import section_index
from core.flows.lesson.graph import STEPS
from tui.messages import RunUpdate, ServicesReady
from tui.screens.base import NoemaScreen
from tui.text import clip
from tui.widgets.banner import MechanicsBanner
from tui.widgets.evaluation import TextModal
from tui.widgets.lesson_review import SelfReviewPanel, judge_text
from tui.widgets.lesson_stepper import LessonStepper
from tui.widgets.markdown_preview import MarkdownPreview
from tui.widgets.model_activity import ModelActivityLine

if TYPE_CHECKING:
    from core.store.runs import RunRecord
    from core.vault_handle import VaultHandle
    from tui.app import NoemaApp

STATUS_MARK = {"accepted": "✓", "needs_review": "?", "needs_regeneration": "✗", "rejected": "−"}
STATUS_LABEL = {"needs_review": "to review", "needs_regeneration": "regenerate"}
"""Statuses as the list names them (short enough for its status column)."""
STATUS_WIDTH = 10
"""The list cuts long topics (the preview shows the lesson in full)."""


def lesson_list(vault: VaultHandle) -> list[tuple[str, str, str]]:
    """(path, status, topic) of every note in the lessons folder."""
    folder = vault.root / vault.layout.lessons
    rows = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        meta = frontmatter.loads(path.read_text(encoding="utf-8")).metadata
        rows.append(
            (
                path.relative_to(vault.root).as_posix(),
                str(meta.get("status", "")),
                str(meta.get("topic", path.stem)),
            )
        )
    return rows


class LessonScreen(NoemaScreen):
    """Generate, review and judge lessons."""

    DEFAULT_CSS = """
    LessonScreen #top { height: auto; padding: 0 1; }
    LessonScreen #concept { width: 1fr; }
    LessonScreen #language { width: 14; }
    LessonScreen #sections { width: 14; }
    LessonScreen #objectives { width: 2fr; }
    LessonScreen #main { height: 1fr; }
    LessonScreen #lessons { width: 24%; min-width: 26; }
    LessonScreen #preview { width: 1fr; }
    LessonScreen #side { width: 36%; min-width: 36; padding: 0 1; }
    LessonScreen #judge { margin: 1 0 0 0; }
    """
    BINDINGS = [
        Binding(
            "g", "focus_concept", "New", id="lesson.new", tooltip="New lesson: to the concept field"
        ),
        Binding("a", "accept", "Accept", id="lesson.accept"),
        Binding("r", "regenerate", "Regen", id="lesson.regenerate", tooltip="Regenerate"),
        Binding("j", "judge", "Judge", id="lesson.judge"),
        Binding("E", "edit", "Edit", id="lesson.edit"),
        Binding("X", "reject", "Reject", id="lesson.reject"),
        # a report, not an action on the lesson: in help and the palette, not the footer
        Binding("s", "savings", "Savings report", id="lesson.savings", show=False),
        Binding("escape", "back", "Back", id="lesson.back"),
    ]
    HELP_KEYS = [
        (
            "enter",
            "on a lesson: show it with its review and scores; in the concept "
            "field: generate a lesson",
        ),
        ("tab", "move between the list, the field and the panels"),
    ]

    def __init__(self, run: RunRecord | None = None, concept: str = "") -> None:
        super().__init__()
        self.run_id: str | None = run.id if run is not None else None
        self.concept = concept
        self.payload: dict[str, object] | None = None
        self.path: str = ""
        self.state_values: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield MechanicsBanner()
        with Horizontal(id="top"):
            yield Input(self.concept, placeholder="concept note (title or path)", id="concept")
            yield Input(placeholder="language", id="language", max_length=8)
            yield Input(placeholder="sections", id="sections", type="integer", max_length=2)
            yield Input(placeholder="objectives (separated by ;)", id="objectives")
            yield Button("Generate", variant="primary", id="generate")
        yield LessonStepper(id="stepper")
        yield ModelActivityLine(lambda: self.run_id)
        with Horizontal(id="main"):
            yield DataTable(id="lessons", cursor_type="row")
            yield MarkdownPreview(id="preview")
            with VerticalScroll(id="side"):
                yield SelfReviewPanel(id="self-review")
                yield Static(judge_text(None, []), id="judge")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Lessons"
        self.fill_lessons([])
        self.query_one("#lessons", DataTable).focus()  # keys act (h, q, ?), not type
        if self.services is not None:
            self.load_lessons()
        if self.run_id is not None:
            stepper = self.query_one(LessonStepper)
            for event in self.app.run_log(self.run_id):
                stepper.apply(event)  # what the run did before this screen opened
            self.load_run(self.run_id)

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.load_lessons()

    # -- the list ------------------------------------------------------------------------------

    @work(exclusive=True, group="lesson-list", thread=True, exit_on_error=False)
    def load_lessons(self) -> None:
        vault = self.require_services().vault
        rows = lesson_list(vault) if vault is not None else []
        store = self.require_services().store
        concepts = [concept.title for concept in list_concepts(store)]
        self.app.call_from_thread(self.fill_lessons, rows, concepts)

    def fill_lessons(self, rows: list[tuple[str, str, str]], concepts: Sequence[str] = ()) -> None:
        if concepts:
            self.query_one("#concept", Input).suggester = SuggestFromList(
                concepts, case_sensitive=False
            )
        self.lesson_rows = list(rows)
        table = self.query_one("#lessons", DataTable)
        current = table.cursor_row
        table.clear(columns=True)
        room = (table.scrollable_content_region.width or 34) - STATUS_WIDTH - 1 - 6
        table.add_column("", width=1)
        table.add_column("Lesson", width=max(8, room))
        table.add_column("Status", width=STATUS_WIDTH)
        for path, status, topic in rows:
            table.add_row(
                STATUS_MARK.get(status, "·"),
                clip(topic, max(8, room)),
                clip(STATUS_LABEL.get(status, status), STATUS_WIDTH),
                key=path,
            )
        if table.row_count:
            table.move_cursor(row=min(max(current, 0), table.row_count - 1), animate=False)

    def on_resize(self) -> None:
        if getattr(self, "lesson_rows", None):
            self.fill_lessons(self.lesson_rows)

    @on(DataTable.RowSelected, "#lessons")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.show_note(str(event.row_key.value))

    @work(exclusive=True, group="lesson-show", exit_on_error=False)
    async def show_note(self, path: str) -> None:
        """A lesson note in the preview, with its run's panels when the run is known."""
        note = self.require_vault().writer.read(path)
        self.path = path
        await self.query_one(MarkdownPreview).show(note.body)
        run_id = str(note.frontmatter.get("noema_run") or "")
        values: dict[str, Any] = {}
        if run_id:
            try:
                values = dict((await self.require_services().runtime.state(run_id)).values)
            except KeyError:
                values = {}
        self.show_state(values)
        self.refresh_bindings()  # a/r/E act on the lesson shown now

    # -- runs ----------------------------------------------------------------------------------

    @on(Button.Pressed, "#generate")
    @on(Input.Submitted, "#concept, #language, #sections, #objectives")
    def generate(self) -> None:
        concept = self.query_one("#concept", Input).value.strip()
        if not concept or self.services is None:
            self.notify("Name a concept note first.", severity="warning")
            return
        self.start_run(self.generation_input(concept), concept)

    def generation_input(self, concept: str) -> dict[str, Any]:
        """The run's input from the fields: language, section count and objectives are
        optional (empty: the note's language, the settings' section count, no objectives)."""
        sections = self.query_one("#sections", Input).value.strip()
        objectives = self.query_one("#objectives", Input).value.split(";")
        return {
            "mode": "generate",
            "concept": concept,
            "language": self.query_one("#language", Input).value.strip(),
            "sections": int(sections) if sections.isdigit() else 0,
            "objectives": [o.strip() for o in objectives if o.strip()],
        }

    def start_run(self, data: dict[str, Any], target: str) -> None:
        from core.flows.lesson.driver import start_lesson

        try:
            run_id = start_lesson(self.services, data)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        self.run_id, self.payload = run_id, None
        self.query_one(LessonStepper).reset()
        if isinstance(self.focused, Input):  # the form is sent: keys act again (h, q, ?)
            self.query_one("#lessons", DataTable).focus()
        self.refresh_bindings()
        self.app.drive_run(run_id)

    def on_run_update(self, message: RunUpdate) -> None:
        event = message.event
        if event.run_id != self.run_id:
            return
        self.query_one(LessonStepper).apply(event)
        if isinstance(event, Interrupted):
            self.payload = event.payload
            self.load_run(event.run_id)
        elif isinstance(event, Done | Failed):
            self.payload = None
            self.load_run(event.run_id)
            self.load_lessons()
        self.refresh_bindings()

    @work(exclusive=True, group="lesson-run", exit_on_error=False)
    async def load_run(self, run_id: str) -> None:
        runtime = self.require_services().runtime
        pending = await runtime.pending_interrupt(run_id)
        self.payload = pending.payload if pending is not None else None
        values = dict((await runtime.state(run_id)).values)
        self.path = values.get("lesson_path", "") or self.path
        await self.query_one(MarkdownPreview).show(values.get("lesson", ""))
        self.show_state(values)
        if pending is not None:
            self.query_one(LessonStepper).at(len(STEPS) - 1, "waiting")
            if self.focused is None or self.focused.id in ("concept", "lessons"):
                self.query_one("#side").focus()  # the review waiting is what the keys act on
        self.refresh_bindings()

    def show_state(self, values: dict[str, Any]) -> None:
        self.state_values = values
        self.query_one(SelfReviewPanel).show(
            values.get("self_review"), values.get("before_fix", ""), values.get("lesson", "")
        )
        results = [
            values[f]
            for f in ("judge_primary", "judge_secondary", "judge_tiebreak")
            if values.get(f)
        ]
        width = self.query_one("#side").content_region.width or 52
        self.query_one("#judge", Static).update(
            judge_text(values.get("cascade"), results, self.judges_note(), width)
        )

    def judges_note(self) -> str:
        """What the judge setup is worth: one model in every judge role repeats itself."""
        from core.flows.lesson.cascade import ONE_MODEL_NOTE, one_judge_model

        settings = getattr(self.services, "settings", None)
        return ONE_MODEL_NOTE if settings is not None and one_judge_model(settings) else ""

    def on_self_review_panel_issue_selected(self, message: SelfReviewPanel.IssueSelected) -> None:
        preview = self.query_one(MarkdownPreview)
        line = section_index(preview.text, message.location)
        if line >= 0:
            preview.goto_line(line)

    # -- keys ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "regenerate", "edit", "reject"):
            return self.payload is not None or bool(self.path)
        return True  # judge: with nothing shown it says what to pick

    def answer(self, value: dict[str, Any]) -> bool:
        """Resume the escalated run with the user's answer (False when none is waiting)."""
        if self.payload is None or self.run_id is None:
            return False
        self.payload = None
        self.app.resume_run(self.run_id, value)
        self.refresh_bindings()
        return True

    def action_accept(self) -> None:
        if not self.answer({"action": "accept"}):
            self.set_status(self.path, "accepted")

    def action_reject(self) -> None:
        """Reject the escalated lesson (its note is written as rejected), or mark the selected
        lesson rejected."""
        if not self.answer({"action": "reject"}) and self.path:
            self.set_status(self.path, "rejected")

    @work(exclusive=True, group="lesson-savings", thread=True, exit_on_error=False)
    def action_savings(self) -> None:
        """The judge-token savings report (the same as `noema lesson savings`)."""
        from core.flows.lesson.traces import lesson_rows, savings_report, savings_text
        from tui.widgets.report_modal import ReportModal

        services = self.require_services()
        store = services.store
        report = savings_report(store, settings=services.settings)
        text = savings_text(report, lesson_rows(store)) if report["lessons"] else "No lessons yet."
        self.app.call_from_thread(self.app.push_screen, ReportModal("Judge-token savings", text))

    @work(exclusive=True, group="lesson-write", thread=True, exit_on_error=False)
    def set_status(self, path: str, status: str) -> None:
        writer = self.require_vault().writer
        writer.set_frontmatter(path, {"status": status}, expected_hash=writer.read(path).hash)
        self.app.call_from_thread(self.notify, f"{path}: {status}")
        self.load_lessons()

    def action_regenerate(self) -> None:
        if self.payload is not None and self.state_values.get("plan"):
            self.answer({"action": "regenerate"})
            return
        meta = frontmatter.loads(
            (self.require_vault().root / self.path).read_text(encoding="utf-8")
        )
        concept = str(meta.get("concept") or meta.get("topic") or "").strip("[]")
        if concept:
            self.start_run({"mode": "generate", "concept": concept}, concept)

    def action_judge(self) -> None:
        """Send the waiting lesson to the judges; with no run waiting (a finished one), judge
        the lesson shown again (a new review run of its note)."""
        if self.answer({"action": "judge"}):
            return
        if self.path:
            self.notify(f"judging {self.path} again: a new review run")
            self.start_run({"mode": "review", "note_path": self.path}, self.path)
        else:
            self.notify("pick a lesson in the list first (enter shows it)", severity="warning")

    def action_edit(self) -> None:
        text = self.query_one(MarkdownPreview).text
        modal = TextModal("Edit the lesson", text, draft=f"lesson.edit:{self.path or self.run_id}")
        self.app.push_screen(modal, self.edited)

    def action_focus_concept(self) -> None:
        """Put the cursor in the concept field (the command palette's "Generate a lesson")."""
        self.query_one("#concept", Input).focus()

    def edited(self, text: str | None) -> None:
        if text is None or self.answer({"action": "edit", "content": text}):
            return
        self.save_and_review(self.path, text)

    @work(exclusive=True, group="lesson-write", thread=True, exit_on_error=False)
    def save_and_review(self, path: str, body: str) -> None:
        from core.flows.lesson.document import render_note

        writer = self.require_vault().writer
        note = writer.read(path)
        writer.write(path, render_note(body, {}, note.text), expected_hash=note.hash)
        self.app.call_from_thread(self.start_run, {"mode": "review", "note_path": path}, path)


def open_screen(app: NoemaApp) -> LessonScreen:
    return LessonScreen()


def review_screen(app: NoemaApp, run: RunRecord) -> LessonScreen:
    return LessonScreen(run=run)
