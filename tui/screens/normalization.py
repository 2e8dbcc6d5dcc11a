"""The normalization screen: run the generator/evaluator loop and watch it live, then review the
proposed merges (accept, reject, choose or rename the canonical, accept the rest) and apply
them after a dry-run diff; undo an apply, or finish one that was interrupted.

The run is driven by the app (`app.drive_run`); this screen follows its `RunUpdate`s. Reviews
live in the store (core.merges), so the latest one shows whenever the screen opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Header, Input, Label, Static

from core.events import Done, Failed, Progress
from core.merges.clusters import build_clusters
from tui.keys import hints, key_for
from tui.messages import RunUpdate, ServicesReady
from tui.screens.base import NoemaModal, NoemaScreen
from tui.widgets.banner import MechanicsBanner
from tui.widgets.model_activity import ModelActivityLine
from tui.widgets.normalization_live import NormalizationLive
from tui.widgets.normalization_proposals import ProposalsView, build_rows, with_merged_concepts

if TYPE_CHECKING:
    from core.merges.plan import MergePlan
    from core.merges.reviews import Review
    from core.store.runs import RunRecord
    from tui.app import NoemaApp
    from tui.widgets.normalization_proposals import ProposalRow


class RenameModal(NoemaModal):
    """A new title for the canonical concept: enter saves, escape cancels."""

    DEFAULT_CSS = """
    RenameModal { align: center middle; }
    RenameModal > Vertical { width: 70; height: auto; border: thick $accent; background: $surface; padding: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="normalization.rename.cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.current = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Rename the canonical concept {self.current!r}")
            yield Input(self.current, id="rename-input")

    @on(Input.Submitted)
    def save(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value if value and value != self.current else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class DiffModal(NoemaModal):
    """The dry-run diff of an apply: y writes it, n / escape does not."""

    DEFAULT_CSS = """
    DiffModal { align: center middle; }
    DiffModal > Vertical { width: 95%; height: 90%; border: thick $accent; background: $surface; }
    DiffModal VerticalScroll { height: 1fr; }
    DiffModal Horizontal { height: auto; align-horizontal: right; }
    """
    BINDINGS = [
        Binding("y", "confirm", "Apply", id="normalization.diff.apply"),
        Binding("n,escape", "cancel", "Cancel", id="normalization.diff.cancel"),
    ]

    def __init__(self, summary: str, diff: str) -> None:
        super().__init__()
        self.summary, self.diff = summary, diff

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Apply these merges? {self.summary}", id="diff-summary")
            with VerticalScroll():
                yield Static(Syntax(self.diff or "(nothing to change)", "diff"), id="diff-text")
            with Horizontal():
                yield Button("Apply", variant="primary", id="diff-apply")
                yield Button("Cancel", id="diff-cancel")

    def on_mount(self) -> None:
        self.query_one(
            "#diff-apply", Button
        ).label = f"Apply ({key_for(self, 'normalization.diff.apply')})"
        self.query_one(
            "#diff-cancel", Button
        ).label = f"Cancel ({key_for(self, 'normalization.diff.cancel')})"

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#diff-apply")
    def _apply(self) -> None:
        self.action_confirm()

    @on(Button.Pressed, "#diff-cancel")
    def _cancel(self) -> None:
        self.action_cancel()


def outcome_text(output: dict[str, Any]) -> Text:
    """The end of a run: done, or partial with every model call whose work is missing."""
    from core.model_failures import skipped_line

    line = (output.get("messages") or ["Done."])[-1]
    skipped = output.get("skipped") or []
    if not skipped:
        return Text(line)
    text = Text(line + "\n", style="bold yellow")
    for entry in skipped:
        text.append(f"  ! {skipped_line(entry)}\n", style="yellow")
    return text


class NormalizationScreen(NoemaScreen):
    """Find, review and apply concept merges."""

    DEFAULT_CSS = """
    NormalizationScreen #review-head { height: auto; }
    NormalizationScreen #review-title { padding: 0 1; text-style: bold; width: 1fr; }
    NormalizationScreen #view-hint { padding: 0 1; color: $text-muted; }
    NormalizationScreen #status-line { padding: 0 1; height: auto; }
    """
    BINDINGS = [
        Binding(
            "s",
            "start",
            "Run",
            tooltip="Start a run: look for concepts that are the same idea",
            id="normalization.start",
        ),
        Binding(
            "a",
            "accept",
            "Accept",
            tooltip="Accept the highlighted merge",
            id="normalization.accept",
        ),
        Binding(
            "r",
            "reject",
            "Reject",
            tooltip="Reject the highlighted merge (future runs avoid it)",
            id="normalization.reject",
        ),
        Binding(
            "c",
            "canonical",
            "Canon",
            tooltip="Make the next concept of the merge its canonical",
            id="normalization.canonical",
        ),
        Binding(
            "R",
            "rename",
            "Rename",
            tooltip="Rename the canonical concept",
            id="normalization.rename",
            show=False,  # in help: the footer keeps q Quit at 100 columns
        ),
        Binding(
            "A",
            "accept_all",
            "Accept rest",
            tooltip="Accept every merge still pending",
            id="normalization.accept_all",
            show=False,  # in help: the footer keeps q Quit at 100 columns
        ),
        Binding(
            "p",
            "apply",
            "Apply",
            tooltip="Apply the accepted merges (after a dry-run diff)",
            id="normalization.apply",
        ),
        Binding(
            "u",
            "undo",
            "Undo",
            tooltip="Undo the last apply: the vault as it was",
            id="normalization.undo",
        ),
        Binding("g", "graph", "Concept graph", id="normalization.graph", show=False),
        Binding("v", "toggle_view", "Clusters/table", id="normalization.view", show=False),
        Binding("escape", "back", "Back", id="normalization.back"),
    ]
    HELP_KEYS = [("↑ ↓", "choose a merge: both definitions and the reason show below")]

    def __init__(self, review_id: str | None = None, run_id: str | None = None) -> None:
        super().__init__()
        self.review_id = review_id
        self.run_id: str | None = run_id
        self.review_status = ""
        self.shown_review: str | None = None
        """The review the table shows (a different one starts on its first merge)."""
        self.failed_run: str | None = None
        """A run of this screen that failed: `s` resumes it from the failed step."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield MechanicsBanner()
        yield NormalizationLive(id="live")
        yield ModelActivityLine(lambda: self.run_id)
        with Horizontal(id="review-head"):
            yield Label("No review yet.", id="review-title")
            yield Label("", id="view-hint")
        yield ProposalsView(id="proposals-view")
        yield Static("", id="status-line")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Concept normalization"
        if self.run_id is not None:
            self.follow(self.run_id)
        if self.services is not None:
            self.load_review(self.review_id)

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.load_review(self.review_id)

    def merges(self) -> Any:
        from core.merges.service import Merges

        services = self.require_services()
        return Merges(services.store, services.vault)

    # -- loading the review ------------------------------------------------------------------

    @work(exclusive=True, group="normalization-load", thread=True, exit_on_error=False)
    def load_review(self, review_id: str | None = None) -> None:
        """Read the review (the latest one when no id is given) off the UI thread."""
        if self.services is None or self.services.vault is None:
            return
        merges = self.merges()
        if review_id is None:
            reviews = merges.reviews.list()
            if not reviews:
                return
            review_id = reviews[0].id
        review = merges.review(review_id)
        concepts = with_merged_concepts(review, merges.concepts())
        choices = merges.reviews.canonical_choices(review.id)
        clusters = build_clusters(review.items, concepts, choices)
        rows = build_rows(review, clusters, concepts)
        unfinished = [u for u in merges.unfinished() if u[0] == review.id]
        self.app.call_from_thread(self.show_review, review, rows, unfinished)
        self.app.call_from_thread(
            self.query_one(ProposalsView).show_clusters, clusters, review, concepts
        )

    def show_review(
        self, review: Review, rows: list[ProposalRow], unfinished: list[tuple[str, int, str]]
    ) -> None:
        same_review = review.id == self.shown_review
        self.review_id, self.review_status, self.shown_review = review.id, review.status, review.id
        counts = review.counts()
        self.query_one("#review-title", Label).update(
            f"Review {review.id[:8]} · {review.status} · {len(review.items)} merges "
            f"({counts['pending']} pending, {counts['accepted']} accepted, "
            f"{counts['rejected']} rejected)"
        )
        self.query_one(ProposalsView).show(rows, same_review)
        self.show_view_hint()
        if unfinished:
            finish, undo = key_for(self, "normalization.apply"), key_for(self, "normalization.undo")
            self.set_status(
                f"An apply was interrupted ({unfinished[0][2] or 'crash'}): "
                f"{finish} finishes it, {undo} undoes it."
            )
        self.refresh_bindings()

    def set_status(self, text: str | Text) -> None:
        self.query_one("#status-line", Static).update(text)

    # -- the run -------------------------------------------------------------------------------

    def action_start(self) -> None:
        if self.services is None:
            self.notify("Still opening the vault and the model.", severity="warning")
            return
        failed, self.failed_run = self.failed_run, None
        if failed is not None:  # resume from the failed step, not from the beginning
            self.run_id = failed
            self.set_status("Resuming the run from the step that failed...")
            self.app.drive_run(failed)
            return
        run = self.services.runtime.start("normalization", {})
        self.run_id = run.id
        self.query_one(NormalizationLive).latest.clear()
        self.set_status("Looking for concepts that are the same idea...")
        self.app.drive_run(run.id)

    def follow(self, run_id: str) -> None:
        """Show a running run (opened from the runs table), starting with what it did so far
        (the app's log: iterations, merges found, the trend, the weak merges)."""
        log = self.replay_run(run_id)
        live = self.query_one(NormalizationLive)
        for event in log:
            if isinstance(event, Progress):
                live.apply(event.data)
        self.set_status(
            f"Following run {run_id[:8]}: looking for concepts that are the same idea..."
        )

    def on_run_update(self, message: RunUpdate) -> None:
        event = message.event
        if event.run_id != self.run_id:
            return
        if self.already_shown(event):  # replayed by `follow`
            return
        if isinstance(event, Progress):
            self.query_one(NormalizationLive).apply(event.data)
        elif isinstance(event, Done):
            review = event.output.get("review_id")
            self.set_status(outcome_text(event.output))
            if review:
                self.load_review(review)
        elif isinstance(event, Failed):
            self.failed_run = event.run_id
            self.set_status(
                Text(
                    f"Failed: {event.error}\ns resumes the run from the step that failed.",
                    style="bold red",
                )
            )

    # -- review actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "reject", "canonical", "rename", "accept_all", "apply"):
            return self.review_id is not None and self.review_status != "applied"
        if action == "undo":
            return self.review_id is not None
        return True

    def _current(self) -> ProposalRow | None:
        return self.query_one(ProposalsView).current()

    def _mark(self, status: str) -> None:
        row = self._current()
        if row is not None and self.review_id:
            self.merges().reviews.set_item(self.review_id, row.key, status)
            self.load_review(self.review_id)

    def action_toggle_view(self) -> None:
        """The merges as a table, or grouped into clusters drawn as trees."""
        self.query_one(ProposalsView).toggle_view()
        self.show_view_hint()

    def show_view_hint(self) -> None:
        clusters = self.query_one(ProposalsView).showing_clusters
        other = "table" if clusters else "clusters"
        keys = hints(
            self, ("normalization.view", other), ("normalization.graph", "graph"), sep=" · "
        )
        self.query_one("#view-hint", Label).update(keys)

    def action_graph(self) -> None:
        """The highlighted merge's canonical concept among its relations."""
        from tui.screens.concept_graph import ConceptGraphScreen

        row = self._current()
        if row is not None:
            self.app.push_screen(ConceptGraphScreen(row.canonical_id))

    def action_accept(self) -> None:
        self._mark("accepted")

    def action_reject(self) -> None:
        self._mark("rejected")

    def action_accept_all(self) -> None:
        if self.review_id:
            self.merges().reviews.accept_remaining(self.review_id)
            self.load_review(self.review_id)

    def action_canonical(self) -> None:
        """The next member of the highlighted cluster becomes its canonical."""
        row = self._current()
        if row is None or row.status == "rejected" or not self.review_id:
            return
        members = list(row.members)
        nxt = members[(members.index(row.canonical_id) + 1) % len(members)]
        self.merges().reviews.choose_canonical(self.review_id, nxt, members)
        self.load_review(self.review_id)

    def action_rename(self) -> None:
        row = self._current()
        if row is None or row.status == "rejected" or not self.review_id:
            return

        def save(title: str | None) -> None:
            if title:
                self.merges().reviews.choose_canonical(
                    self.review_id, row.canonical_id, row.members, title
                )
                self.load_review(self.review_id)

        self.app.push_screen(RenameModal(row.canonical), save)

    # -- apply / undo ----------------------------------------------------------------------------

    @work(exclusive=True, group="normalization-apply", thread=True, exit_on_error=False)
    def action_apply(self) -> None:
        """Finish an interrupted apply, or plan one and show its diff before writing."""
        merges = self.merges()
        if [u for u in merges.unfinished() if u[0] == self.review_id]:
            resumed = merges.resume(self.review_id)
            changed = resumed.replanned or resumed.skipped
            how = "planned again over" if resumed.replanned else "left out"
            note = f" ({how} your edits of {', '.join(changed)})" if changed else ""
            self.app.call_from_thread(self.after_write, f"The interrupted apply is finished{note}.")
            return
        merges.vault.index.sync_files()
        plan = merges.plan(self.review_id)
        if not plan.clusters:
            self.app.call_from_thread(self.notify, "Accept some merges first.", severity="warning")
            return
        self.app.call_from_thread(self.confirm_apply, plan)

    def confirm_apply(self, plan: MergePlan) -> None:
        def answer(ok: bool | None) -> None:
            if ok:
                self.write_plan(plan)

        self.app.push_screen(DiffModal(plan.summary(), plan.diff()), answer)

    @work(exclusive=True, group="normalization-apply", thread=True, exit_on_error=False)
    def write_plan(self, plan: MergePlan) -> None:
        from core.merges.journal import ApplyInterrupted

        try:
            self.merges().apply(plan)
        except ApplyInterrupted as exc:
            keys = hints(
                self, ("normalization.apply", "resumes"), ("normalization.undo", "undoes"), sep=", "
            )
            self.app.call_from_thread(self.after_write, f"{exc} ({keys})")
            return
        undo = key_for(self, "normalization.undo")
        self.app.call_from_thread(self.after_write, f"Applied: {plan.summary()}. {undo} undoes it.")

    @work(exclusive=True, group="normalization-apply", thread=True, exit_on_error=False)
    def action_undo(self) -> None:
        self.merges().undo(self.review_id)
        self.app.call_from_thread(self.after_write, "Undone: the vault is as it was.")

    def after_write(self, text: str) -> None:
        self.set_status(text)
        self.notify(text)
        self.load_review(self.review_id)


def open_screen(app: NoemaApp) -> NormalizationScreen:
    """The screen as opened from home (the registry's `open` factory)."""
    return NormalizationScreen()


def review_screen(app: NoemaApp, run: RunRecord) -> NormalizationScreen:
    """The review a normalization run stored (the registry's `review` factory; review id =
    run id)."""
    return NormalizationScreen(review_id=run.id)


def run_screen(app: NoemaApp, run: RunRecord) -> NormalizationScreen:
    """A running normalization run followed live (the registry's `running` factory); the
    latest review shows until the run stores its own."""
    return NormalizationScreen(run_id=run.id)
