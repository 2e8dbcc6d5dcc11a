"""The extraction screen: sources -> live progress by step -> the review -> written notes.

Left, the source notes and their state (processed, unprocessed, queued, running, awaiting
review). Enter (or `x`) on a source starts its extraction, or opens the review it waits at.
The run is driven by the app (`app.drive_run` / `app.resume_run`); this screen follows its
`RunUpdate`s. In the review, the cursor moves over every item (new concepts, duplicates,
relations, quote attributions); `d` drops or restores the item, `f` sends feedback, `a`
approves (with the drops), `X` aborts. After the commit the written notes are listed.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Label, Static

from core.events import Done, Failed, Interrupted
from core.flows.extraction.state import ExtractionReview
from core.overview import SourceStatus, source_statuses
from tui.keys import key_for
from tui.messages import RunsChanged, RunUpdate, ServicesReady
from tui.screens.base import NoemaScreen
from tui.widgets.banner import MechanicsBanner
from tui.widgets.confirm import ConfirmModal
from tui.widgets.evaluation import TextModal
from tui.widgets.extraction_review import (
    ReviewTable,
    detail_text,
    drops_for,
    notes_text,
    offered_actions,
    review_headline,
)
from tui.widgets.extraction_sources import SourcesTable
from tui.widgets.extraction_steps import ExtractionSteps
from tui.widgets.model_activity import ModelActivityLine

if TYPE_CHECKING:
    from core.store.runs import RunRecord
    from tui.app import NoemaApp

FLOW = "extraction"


class ExtractionScreen(NoemaScreen):
    """Extract concepts from a source note and review them."""

    DEFAULT_CSS = """
    ExtractionScreen #left { width: 32%; min-width: 28; max-width: 42; border-right: solid $primary; }
    ExtractionScreen #source-detail { height: auto; padding: 0 1; }
    ExtractionScreen #sources { height: 1fr; }
    ExtractionScreen #right { width: 1fr; }
    ExtractionScreen #items { height: 14; }
    ExtractionScreen #detail, ExtractionScreen #notes, ExtractionScreen #outcome { padding: 0 1; }
    ExtractionScreen .title { text-style: bold; padding: 0 1; }
    """
    BINDINGS = [
        Binding("s", "extract", "Start", id="extraction.extract", tooltip="Start extraction"),
        Binding("d", "toggle_drop", "Drop", id="extraction.drop", tooltip="Drop/restore"),
        Binding("f", "feedback", "Feedback", id="extraction.feedback"),
        Binding("a", "approve", "Approve", id="extraction.approve"),
        Binding("X", "abort", "Abort", id="extraction.abort"),
        Binding("g", "graph", "Concept graph", id="extraction.graph", show=False),
        Binding("escape", "back", "Back", id="extraction.back"),
    ]
    HELP_KEYS = [
        ("enter", "on a source: start its extraction, or open the review it waits at"),
        ("↑ ↓", "choose a source, or an item of the review"),
    ]

    def __init__(self, run: Any = None) -> None:
        super().__init__()
        self.run_id: str | None = run.id if run is not None else None
        self._wanted: str | None = None
        """A source the palette asked to extract before the sources were listed."""
        self.review: ExtractionReview | None = None
        """The review the run waits at, read from its interrupt payload once (None: none)."""
        self.dropped: set[str] = set()
        """ids of the logged events already shown by `follow` (their RunUpdate may follow)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield MechanicsBanner()
        with Horizontal():
            with Vertical(id="left"):
                yield Label("Sources", classes="title")
                yield SourcesTable(id="sources")
                yield Static("", id="source-detail")
            with VerticalScroll(id="right"):
                yield ExtractionSteps(id="steps")
                yield ModelActivityLine(lambda: self.run_id)
                yield ReviewTable(id="items")
                yield Static("", id="detail")
                yield Static("", id="notes")
                yield Static("", id="outcome")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Concept extraction"
        self.watch(self.query_one("#right"), "virtual_size", self.show_items_at_top, init=False)
        self.query_one("#outcome", Static).update(
            f"Pick a source and press {key_for(self, 'extraction.extract')} (or Enter)."
        )
        if self.run_id is not None:
            self.follow(self.run_id)
        if self.services is not None:
            self.load_sources()
            if self.run_id is not None:
                self.load_pending(self.run_id)

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.load_sources()

    def on_runs_changed(self, _message: RunsChanged) -> None:
        self.load_sources()

    @work(exclusive=True, group="extraction-sources", thread=True, exit_on_error=False)
    def load_sources(self) -> None:
        rows = source_statuses(self.require_services().store)
        self.app.call_from_thread(self.show_sources, rows)

    def show_sources(self, rows: list[SourceStatus]) -> None:
        """The sources; opened with no run, the screen follows the one already going."""
        table = self.query_one(SourcesTable)
        table.show(rows)
        wanted, self._wanted = self._wanted, None
        if wanted is not None and wanted in table.rows_by_path:
            self.action_extract_path(wanted)
            return
        if self.run_id is not None:
            return
        going = [r for r in rows if r.status in ("running", "awaiting review") and r.run_id]
        going.sort(key=lambda r: (r.run_id not in self.app.driving, r.status != "running"))
        path, _title, status, run_id = going[0] if going else (None, "", "", None)
        if path is not None and run_id is not None:
            table.move_cursor(row=table.get_row_index(path))
            self.follow(run_id)
            if status == "awaiting review":
                self.load_pending(run_id)

    @on(DataTable.RowHighlighted, "#sources")
    def _source_highlighted(self) -> None:
        """The highlighted source in full (the table cuts long names)."""
        table = self.query_one(SourcesTable)
        row = table.rows_by_path.get(table.current_path() or "")
        detail = Text()
        if row is not None:
            detail.append(row[1] or row[0], style="bold").append(
                f"\n{row[0]}\n{row[2]}", style="dim"
            )
        self.query_one("#source-detail", Static).update(detail)

    @work(exclusive=True, group="extraction-load", exit_on_error=False)
    async def load_pending(self, run_id: str) -> None:
        """Show the review a run waits at (opened from the runs table or the sources list)."""
        pending = await self.require_services().runtime.pending_interrupt(run_id)
        if pending is not None:
            self.query_one(ExtractionSteps).apply(pending)
            self.show_payload(pending.payload)

    @work(exclusive=True, group="extraction-seed", exit_on_error=False)
    async def seed_steps(self, run_id: str) -> None:
        snapshot = await self.require_services().runtime.state(run_id)
        if run_id == self.run_id:
            self.query_one(ExtractionSteps).seed(dict(snapshot.values))

    # -- starting ------------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#sources")
    def _source_selected(self) -> None:
        self.action_extract()

    def action_extract(self) -> None:
        table = self.query_one(SourcesTable)
        path = table.current_path()
        if path is None or self.services is None:
            return
        _path, _title, status, run_id = table.rows_by_path[path]
        if status == "processed":
            self.ask_extract_again(path)
            return
        if status == "awaiting review" and run_id is not None:
            self.follow(run_id)
            self.load_pending(run_id)
            return
        if status == "running" and run_id is not None:
            self.follow(run_id)
            return
        if run_id is None:
            run_id = self.services.runtime.start(FLOW, {"source": path}, target=path).id
        self.start(run_id, path)

    def start(self, run_id: str, path: str) -> None:
        self.follow(run_id)
        self.query_one("#outcome", Static).update(f"Extracting {path}...")
        self.app.drive_run(run_id)

    def ask_extract_again(self, path: str) -> None:
        """A processed source is extracted again only when the user says so."""

        def answered(again: bool | None) -> None:
            if again and self.services is not None:
                run = self.services.runtime.start(
                    FLOW, {"source": path, "again": True}, target=path
                )
                self.start(run.id, path)

        body = (
            f"{path} is already processed. Extract it again? Its concept notes stay; a new "
            "review proposes what it finds."
        )
        self.app.push_screen(
            ConfirmModal("Extract again", body, "Extract again", "Cancel"), answered
        )

    def follow(self, run_id: str) -> None:
        """Show `run_id` from now on, starting with what it did so far (the app's log)."""
        self.run_id, self.review, self.dropped = run_id, None, set()
        log = self.replay_run(run_id)
        self.query_one(ExtractionSteps).replay(log)
        if log:
            self.query_one("#outcome", Static).update(f"Following run {run_id[:8]}...")
        if self.services is not None and not any(
            getattr(event, "node", "") == "load_source" for event in log
        ):
            self.seed_steps(run_id)  # the log misses its start: the checkpoint tells the rest
        self.clear_review()
        self.refresh_bindings()

    # -- run events ------------------------------------------------------------------------------

    def on_run_update(self, message: RunUpdate) -> None:
        event = message.event
        if self.run_id is None and self.is_extraction(event.run_id):
            self.follow(event.run_id)  # a run started while the screen shows none (watcher)
            self.load_sources()
        if event.run_id != self.run_id:
            return
        if self.already_shown(event):  # replayed by `follow`
            return
        self.query_one(ExtractionSteps).apply(event)
        if isinstance(event, Interrupted):
            self.show_payload(event.payload)
        elif isinstance(event, Done):
            self.show_outcome(event.output)
        elif isinstance(event, Failed):
            self.review = None
            self.query_one("#outcome", Static).update(
                Text(f"Failed: {event.error}", style="bold red")
            )
            self.refresh_bindings()

    def clear_review(self) -> None:
        """No review on screen: its items, the selected item's detail, its warnings."""
        self.query_one(ReviewTable).clear()
        for name in ("#detail", "#notes"):
            self.query_one(name, Static).update("")

    def is_extraction(self, run_id: str) -> bool:
        try:
            return self.require_services().runtime.runs.get(run_id).flow == FLOW
        except (AttributeError, KeyError):
            return False

    def show_payload(self, payload: object) -> None:
        """Show the review an interrupt carries (validated into `ExtractionReview` here, once)."""
        review = self.review = ExtractionReview.model_validate(payload)
        self.dropped = set()
        table = self.query_one(ReviewTable)
        table.show(review, self.dropped)
        self.query_one("#notes", Static).update(notes_text(review))
        self.show_detail()
        key = partial(key_for, self)
        self.query_one("#outcome", Static).update(
            review_headline(review, lambda action: key(f"extraction.{action}"))
        )
        # the items and the selected one's detail in view, the steps above them scrolled away
        # where the window is short (focus alone scrolled the table into view, or not, by a
        # race with the layout of what was just shown)
        table.focus(scroll_visible=False)
        self.call_after_refresh(self.show_items_at_top)
        self.refresh_bindings()

    def show_items_at_top(self, _size: object = None) -> None:
        """While a review is shown its items and the selected one's detail are in view, the
        steps above them scrolled away where the window is short. Done again whenever the
        pane's content changes height: the review's rows and detail take their place over
        the layouts that follow its arrival (focus alone scrolled the table into view, or
        not, by a race with them)."""
        if self.review is None:
            return
        right = self.query_one("#right", VerticalScroll)
        right.scroll_to_widget(self.query_one(ReviewTable), top=True, animate=False)

    @on(DataTable.RowHighlighted, "#items")
    def show_detail(self) -> None:
        key = self.query_one(ReviewTable).current_key()
        if self.review is None or key is None:
            self.query_one("#detail", Static).update("")
            return
        restore = key_for(self, "extraction.drop")
        detail = detail_text(self.review, key)
        if key in self.dropped:
            detail = Group(Text(f"DROPPED — {restore} restores it", style="bold red"), detail)
        self.query_one("#detail", Static).update(detail)

    def show_outcome(self, output: dict[str, Any]) -> None:
        self.review = None
        self.clear_review()
        written = output.get("written") or []
        messages = output.get("messages") or ["Done."]
        headline = messages[-1].splitlines()[0]
        if written and headline.endswith(":"):  # "Committed. Files written:": listed below
            headline = headline.rsplit(". ", 1)[0].rstrip(".") + "."
        text = Text(
            headline + "\n",
            style="bold green" if output.get("outcome") == "committed" else "bold yellow",
        )
        if written:
            text.append("Written notes:\n", style="bold")
            for path in written:
                text.append(f"  {path}\n")
        outcome = self.query_one("#outcome", Static)
        outcome.update(text)
        outcome.scroll_visible(animate=False)
        self.load_sources()
        self.refresh_bindings()

    # -- review actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_drop", "abort", "graph"):
            return self.review is not None
        if action in ("feedback", "approve"):  # no rounds left / nothing to commit: disabled
            return self.review is not None and action in offered_actions(self.review)
        return True

    def action_toggle_drop(self) -> None:
        table = self.query_one(ReviewTable)
        key = table.current_key()
        if self.review is None or key is None:
            return
        self.dropped.symmetric_difference_update({key})
        table.show(self.review, self.dropped)
        self.show_detail()

    def action_graph(self) -> None:
        """The highlighted item's concept among its relations (the proposed ones included)."""
        from tui.screens.concept_graph import from_extraction

        key = self.query_one(ReviewTable).current_key()
        screen = from_extraction(self.review, key) if key and self.review else None
        if screen is not None:
            self.app.push_screen(screen)

    def drops(self) -> list[dict[str, str]]:
        if self.review is None:
            return []
        items = [d for key in sorted(self.dropped) for d in drops_for(key, self.review)]
        return [dict(t) for t in dict.fromkeys(tuple(sorted(d.items())) for d in items)]

    def answer(self, value: dict[str, Any]) -> None:
        if self.run_id is None:
            return
        self.review = None
        self.clear_review()  # the answered review no longer applies
        self.refresh_bindings()
        self.query_one("#outcome", Static).update("Continuing...")
        self.app.resume_run(self.run_id, value)

    def action_approve(self) -> None:
        """Approve; a review that keeps nothing would only mark the source processed: ask."""
        from core.flows.extraction.report import writes_nothing

        drops = self.drops()
        value = {"action": "approve", "drops": drops}
        if self.review is not None and not writes_nothing(self.review, drops):
            self.answer(value)
            return

        def answer(approve: bool | None) -> None:
            if approve:
                self.answer(value)

        body = (
            "No concept is kept and no quote is linked: approving writes nothing and marks "
            "the source processed. Approve anyway? (f asks for changes, X aborts and leaves "
            "the source unprocessed; a processed source can be extracted again.)"
        )
        self.app.push_screen(ConfirmModal("Nothing to write", body, "Approve", "Back"), answer)

    def action_feedback(self) -> None:
        drops = self.drops()

        def send(feedback: str | None) -> None:
            if feedback and feedback.strip():
                self.answer({"action": "feedback", "feedback": feedback.strip(), "drops": drops})

        modal = TextModal("What should change in this extraction?", draft=self.draft_key)
        self.app.push_screen(modal, send)

    @property
    def draft_key(self) -> str:
        """Where the unsent feedback of this run's review is kept."""
        return f"extraction.feedback:{self.run_id}"

    def action_extract_path(self, path: str) -> None:
        """Start (or open) the extraction of one source (the command palette's entry), once
        the sources are listed."""
        table = self.query_one(SourcesTable)
        if path not in table.rows_by_path:
            self._wanted = path  # `show_sources` comes back here
            return
        table.move_cursor(row=table.get_row_index(path))
        self.action_extract()

    def action_abort(self) -> None:
        self.answer({"action": "abort"})


def open_screen(app: NoemaApp) -> ExtractionScreen:
    """The screen as opened from home (the registry's `open` factory)."""
    return ExtractionScreen()


def review_screen(app: NoemaApp, run: RunRecord) -> ExtractionScreen:
    """The review of an extraction run awaiting review (the registry's `review` factory)."""
    return ExtractionScreen(run=run)
