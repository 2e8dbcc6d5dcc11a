"""The rubric screen: pick a note and a rubric, watch the evaluation, then approve / revise / edit.

The run is driven by the app (`app.drive_run` / `app.resume_run`, one runs worker); this
screen reacts to the `RunUpdate` messages of its own run. Reached from home with `e`, and
from a rubric run awaiting review in the runs table (`review_screen`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Button, DataTable, Footer, Header, Input, Select, Static

from core.events import Done, Failed, Interrupted, NodeFinished
from tui.keys import hints, key_for
from tui.messages import RunsChanged, RunUpdate, ServicesReady
from tui.screens.base import NoemaScreen
from tui.widgets.banner import MechanicsBanner
from tui.widgets.confirm import ConfirmModal
from tui.widgets.evaluation import (
    CriteriaTable,
    TextModal,
    criterion_detail,
    remarks_text,
    verdict_text,
)
from tui.widgets.model_activity import ModelActivityLine
from tui.widgets.progress import RunProgress
from tui.widgets.revision import RevisionModal, revision_renderable

if TYPE_CHECKING:
    from core.flows.rubric.state import RevisionReview, RubricReview
    from core.store.runs import RunRecord
    from tui.app import NoemaApp
    from vault.layout import VaultLayout

FROM_NOTE = "(from note)"
"""Criteria choice meaning: the note's `rubric:` frontmatter key, else `default`."""
STEPS = ["load_note", "evaluate", "evaluate_judge", "evaluate_review"]
SAY_AT_REVIEW = ("rewrite", "confirm_revision")
"""Nodes whose last message explains why the evaluation is back for review (a revision that
could not be made, or was rejected): the review shows it."""
MAX_NOTES = 5000


def note_paths(root: Path, layout: VaultLayout) -> list[str]:
    """Vault-relative paths of the notes (for the picker's suggestions)."""
    found = []
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if layout is None or not layout.is_excluded(rel):
            found.append(rel)
        if len(found) >= MAX_NOTES:
            break
    return found


class RubricScreen(NoemaScreen):
    """Evaluate a note against a rubric and review the result."""

    DEFAULT_CSS = """
    RubricScreen #pickers { height: auto; padding: 0 1; }
    RubricScreen #note { width: 1fr; }
    RubricScreen #criteria { width: 32; }
    RubricScreen #verdict, RubricScreen #outcome { padding: 0 1; height: auto; }
    RubricScreen #result { padding: 0 1; }
    RubricScreen #criteria-table { height: auto; max-height: 12; }
    RubricScreen #criterion-detail, RubricScreen #remarks { margin: 1 0 0 0; }
    RubricScreen RunProgress { padding: 0 1; }
    """
    BINDINGS = [
        Binding(
            "g", "focus_note", "New", id="rubric.new", tooltip="Evaluate a note: to the note field"
        ),
        Binding("a", "approve", "Approve", id="rubric.approve"),
        Binding("r", "revise", "Revise", id="rubric.revise"),
        Binding("E", "edit", "Edit", id="rubric.edit"),
        Binding("v", "view_revision", "View revision", id="rubric.view_revision"),
        Binding("escape", "back", "Back", id="rubric.back"),
    ]
    HELP_KEYS = [
        ("enter", "in the note field: evaluate it"),
        ("↑ ↓", "choose a criterion: its rationale and issues show below"),
    ]

    def __init__(
        self, note: str = "", criteria: str | None = None, run: RunRecord | None = None
    ) -> None:
        super().__init__()
        self.note, self.criteria = note, criteria or FROM_NOTE
        self.run_id: str | None = run.id if run is not None else None
        self.payload: dict[str, Any] | None = None
        self.ready = False
        """True once the runtime has recorded the run as awaiting review (answers allowed)."""
        self.note_message = ""
        """What the run said last (a revision that could not be made, say): shown with the
        review it comes back to."""

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield MechanicsBanner()
        with Horizontal(id="pickers"):
            yield Input(self.note, placeholder="note (vault-relative path)", id="note")
            yield Select(
                [(self.criteria, self.criteria)],
                value=self.criteria,
                allow_blank=False,
                id="criteria",
            )
            yield Button("Evaluate", variant="primary", id="evaluate")
        yield RunProgress(STEPS, id="progress")
        yield ModelActivityLine(lambda: self.run_id)
        yield Static("Pick a note and a rubric, then Evaluate.", id="verdict")
        yield Static("", id="outcome")
        with VerticalScroll(id="result"):
            yield CriteriaTable(id="criteria-table")
            yield Static("", id="criterion-detail")
            yield Static("", id="remarks")
            yield Static("", id="diff")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Rubric evaluation"
        self.query_one("#criteria-table").focus()  # keys act (h, q, ?); g goes to the note
        if self.services is not None:
            self.load_pickers()
        if self.run_id is not None:
            progress = self.query_one(RunProgress)
            for event in self.app.run_log(self.run_id):
                progress.apply(event)  # what the run did before this screen opened
            self.load_pending(self.run_id)

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.load_pickers()

    @work(exclusive=True, group="rubric-pickers", thread=True, exit_on_error=False)
    def load_pickers(self) -> None:
        """Note suggestions and criteria names (disk reads, off the UI thread)."""
        from core.evaluation import available_criteria

        services = self.require_services()
        names = available_criteria([services.settings.data_dir / "criteria"])
        vault = services.vault
        notes = note_paths(vault.root, vault.layout) if vault is not None else []
        self.app.call_from_thread(self.fill_pickers, names, notes)

    def fill_pickers(self, names: list[str], notes: list[str]) -> None:
        select = self.query_one("#criteria", Select)
        select.set_options([(FROM_NOTE, FROM_NOTE), *((name, name) for name in names)])
        if self.criteria in names or self.criteria == FROM_NOTE:
            select.value = self.criteria
        self.query_one("#note", Input).suggester = SuggestFromList(notes, case_sensitive=False)

    @work(exclusive=True, group="rubric-load", exit_on_error=False)
    async def load_pending(self, run_id: str) -> None:
        """Show the review a run is waiting at (opened from the runs table)."""
        runtime = self.require_services().runtime
        pending = await runtime.pending_interrupt(run_id)
        snapshot = await runtime.state(run_id)
        values = snapshot.values
        self.note = values.get("note_path", self.note)
        self.query_one("#note", Input).value = self.note
        if pending is not None:
            self.show_payload(pending.payload)

    # -- starting ------------------------------------------------------------------------------

    @on(Button.Pressed, "#evaluate")
    @on(Input.Submitted, "#note")
    def start(self) -> None:
        note = self.query_one("#note", Input).value.strip()
        criteria = self.query_one("#criteria", Select).value
        if not note:
            self.notify("Pick a note first.", severity="warning")
            return
        if self.services is None:
            self.notify(
                "Still opening the vault and the model; try again in a moment.", severity="warning"
            )
            return
        self.note, self.criteria = note, str(criteria)
        chosen = None if self.criteria == FROM_NOTE else self.criteria
        run = self.services.runtime.start(
            "rubric", {"note_path": note, "criteria": chosen}, target=note
        )
        self.run_id = run.id
        self.query_one(RunProgress).reset()
        self.query_one("#criteria-table").focus()  # review keys act, not type into the note
        if len(self.app.driving) < self.app.settings.tui.max_parallel_runs:
            self.clear_result(f"Evaluating {note}...")
            self.app.drive_run(run.id)
        else:  # the app starts it when a running run pauses (tui.max_parallel_runs)
            self.app.post_message(RunsChanged())  # home lists the queued run
            self.clear_result(
                f"Queued: {note} is evaluated when the run in progress pauses "
                "(or press s on it in the home runs table)."
            )

    def clear_result(self, headline: str) -> None:
        self.payload, self.ready, self.note_message = None, False, ""
        self.query_one("#verdict", Static).update(headline)
        self.query_one(CriteriaTable).show([])
        for name in ("#criterion-detail", "#remarks", "#diff", "#outcome"):
            self.query_one(name, Static).update("")
        self.refresh_bindings()

    # -- run events ------------------------------------------------------------------------------

    def on_run_update(self, message: RunUpdate) -> None:
        event = message.event
        if event.run_id != self.run_id:
            return
        self.query_one(RunProgress).apply(event)
        if isinstance(event, NodeFinished) and event.node in SAY_AT_REVIEW:
            self.note_message = str((event.update.get("messages") or [""])[-1])
        if isinstance(event, Interrupted):
            self.show_payload(event.payload)
        elif isinstance(event, Done):
            self.show_outcome(event.output)
        elif isinstance(event, Failed):
            self.payload, self.ready = None, False
            self.query_one("#outcome", Static).update(
                Text(f"Failed: {event.error}", style="bold red")
            )
            self.refresh_bindings()

    def on_runs_changed(self, _message: RunsChanged) -> None:
        self.update_ready()

    def update_ready(self) -> None:
        """Answers are accepted only once the run's pause is recorded (after its stream ends)."""
        ready = False
        if self.payload is not None and self.run_id is not None and self.services is not None:
            ready = self.services.runtime.runs.get(self.run_id).status == "awaiting_review"
        if ready != self.ready:
            self.ready = ready
            self.refresh_bindings()

    def show_payload(self, payload: dict[str, Any]) -> None:
        from core.flows.rubric.state import RevisionReview, review_of

        review = review_of(payload)  # the payload as its model (a clear error when malformed)
        self.payload = payload
        self.update_ready()
        if isinstance(review, RevisionReview):
            self.show_revision(review)
        else:
            self.show_evaluation(review)
        self.refresh_bindings()

    def show_evaluation(self, review: RubricReview) -> None:
        """Verdict, every criterion in the table (the highlighted one in full), remarks."""
        evaluation = review.evaluation.model_dump(mode="json")
        self.query_one("#verdict", Static).update(verdict_text(review))
        table = self.query_one(CriteriaTable)
        table.display = True
        table.show(evaluation["criteria"])
        self.show_criterion()
        self.query_one("#remarks", Static).update(remarks_text(evaluation))
        self.query_one("#diff", Static).update("")
        keys = hints(
            self,
            ("rubric.approve", "approve"),
            ("rubric.revise", "revise"),
            ("rubric.edit", "edit"),
        )
        self.show_line(keys, self.note_message)
        table.focus()

    def show_revision(self, review: RevisionReview) -> None:
        """The proposed revision, as a question (diff and revised text, y/n); it stays on the
        screen too, for after the dialog is closed to decide later."""
        self.query_one("#verdict", Static).update(
            Text.assemble(
                (review.title or "Proposed revision", "bold"),
                "\n",
                (review.description, "italic"),
            )
        )
        self.query_one(CriteriaTable).display = False
        for name in ("#criterion-detail", "#remarks"):
            self.query_one(name, Static).update("")
        self.query_one("#diff", Static).update(revision_renderable(review))
        view = key_for(self, "rubric.view_revision")
        self.show_line(f"{view}: answer the proposed revision (accept or reject)")
        self.query_one("#result", VerticalScroll).scroll_home(animate=False)
        self.action_view_revision()

    def action_view_revision(self) -> None:
        """Ask about the proposed revision (again)."""
        from core.flows.rubric.state import RevisionReview, review_of

        review = review_of(self.payload) if self.payload is not None else None
        if not isinstance(review, RevisionReview) or isinstance(self.app.screen, RevisionModal):
            return

        def answered(answer: str | None) -> None:
            if answer in ("accept", "reject") and self.ready:
                self.answer({"action": answer})

        self.app.push_screen(RevisionModal(review), answered)

    def show_line(self, keys: str, said: str = "") -> None:
        text = Text(said + "\n", style="bold yellow") if said else Text()
        self.query_one("#outcome", Static).update(text.append(keys, style="bold"))

    @on(DataTable.RowHighlighted, "#criteria-table")
    def show_criterion(self) -> None:
        current = self.query_one(CriteriaTable).current()
        detail = criterion_detail(current) if current is not None else ""
        self.query_one("#criterion-detail", Static).update(detail)

    def show_outcome(self, output: dict[str, Any]) -> None:
        self.payload, self.ready = None, False
        messages = output.get("messages") or []
        style = "bold green" if output.get("outcome") == "approved" else "bold yellow"
        if output.get("outcome") == "failed" and not output.get("evaluation"):
            self.query_one("#verdict", Static).update("Not evaluated.")
        self.query_one("#outcome", Static).update(
            Text(messages[-1] if messages else "Done.", style=style)
        )
        self.query_one("#diff", Static).update("")
        self.query_one(CriteriaTable).display = True
        self.refresh_bindings()

    # -- review actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        kind = (self.payload or {}).get("type") if self.ready else None
        if action in ("approve", "revise", "edit"):
            return kind == "evaluation_review" and action in (self.payload or {}).get("actions", [])
        if action == "view_revision":
            return kind == "revision_review"
        return True

    def answer(self, value: object) -> None:
        """Resume the run with the human's answer."""
        if self.run_id is None:
            return
        self.payload, self.ready, self.note_message = None, False, ""
        self.refresh_bindings()
        self.query_one("#outcome", Static).update("Continuing...")
        self.app.resume_run(self.run_id, value)

    def action_approve(self) -> None:
        """Approve; a note that did not pass is approved only after the user confirms."""
        evaluation = (self.payload or {}).get("evaluation") or {}
        if evaluation.get("passed", True):
            self.answer({"action": "approve"})
            return
        score, threshold = (
            evaluation.get("overall_score", 0),
            evaluation.get("passing_threshold", 0),
        )
        body = f"{self.note} scored {score:.2f}, below the threshold {threshold:.2f}."
        if evaluation.get("failed_critical"):
            body += f"\nCritical criteria below their threshold: {', '.join(evaluation['failed_critical'])}."
        body += "\n\nMark it approved anyway?"

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.answer({"action": "approve"})

        self.app.push_screen(
            ConfirmModal("This note did not pass", body, "Approve", "Cancel"), confirmed
        )

    def action_revise(self) -> None:
        def send(feedback: str | None) -> None:
            if feedback is not None:
                self.answer({"action": "revise", "feedback": feedback.strip()})

        modal = TextModal(
            "What should the revision change? (optional)", draft=f"rubric.revise:{self.run_id}"
        )
        self.app.push_screen(modal, send)

    def action_edit(self) -> None:
        try:
            body = self.require_vault().writer.read(self.note).body
        except Exception as exc:
            self.notify(f"Cannot read {self.note}: {exc}", severity="error")
            return

        def send(text: str | None) -> None:
            if text is not None and text != body:
                self.answer({"action": "edit", "content": text})

        self.app.push_screen(
            TextModal(f"Edit {self.note}", body, draft=f"rubric.edit:{self.note}"), send
        )

    def action_focus_note(self) -> None:
        """Put the cursor in the note field (the command palette's "Evaluate a note")."""
        self.query_one("#note", Input).focus()


def open_screen(app: NoemaApp) -> RubricScreen:
    """The screen as opened from home (the registry's `open` factory)."""
    return RubricScreen()


def review_screen(app: NoemaApp, run: RunRecord) -> RubricScreen:
    """The review of a rubric run awaiting review (the registry's `review` factory)."""
    criteria = (run.input or {}).get("criteria")
    return RubricScreen(
        note=run.target, criteria=criteria if isinstance(criteria, str) else None, run=run
    )
