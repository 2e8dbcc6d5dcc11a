"""Mastery over time: every concept note and subtopic the learner practiced, most due first,
and a chart of the highlighted one across sessions (opened from home and from the tutor)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Static

from core.flows.tutor.progress import Tracked
from tui.messages import ServicesReady
from tui.screens.base import NoemaScreen
from tui.text import clip
from tui.widgets.mastery_chart import MasteryChart, mastery_colour

if TYPE_CHECKING:
    from tui.app import NoemaApp

DUE_HELP = (
    "Due: weakest and longest unpracticed first (0.6 × what is not mastered + "
    "0.4 × days since practice / 14, capped at 1)."
)


OTHER_COLUMNS = 1 + 7 + 5 + 5 + 2 * 5 + 2
"""Cells of the kind, mastery, sessions and date columns, their padding and the scrollbar."""


def mastery_cell(value: float) -> Text:
    return Text(f"{value:.0%}", style=mastery_colour(value), justify="right")


class ProgressScreen(NoemaScreen):
    """The learner's progress: what is due, and how each item's mastery moved."""

    DEFAULT_CSS = """
    ProgressScreen #progress-body { height: 1fr; }
    ProgressScreen #progress-items { width: 48%; min-width: 46; }
    ProgressScreen #progress-chart-column { width: 1fr; }
    ProgressScreen #progress-detail { height: auto; padding: 0 1; }
    ProgressScreen #progress-help { height: auto; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("r", "reload", "Refresh", id="progress.refresh"),
        Binding("escape", "back", "Back", id="progress.back"),
    ]
    HELP_KEYS = [("↑ ↓", "choose a concept (●) or a subtopic (◆): its chart shows beside")]

    def __init__(self, focus: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.focus_on = focus
        """(kind, ref) to highlight first (the tutor's session), when it was practiced."""
        self.items: list[Tracked] = []

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="progress-body"):
            yield DataTable(id="progress-items", cursor_type="row", zebra_stripes=True)
            with Vertical(id="progress-chart-column"):
                yield MasteryChart(id="progress-chart")
                yield Static("", id="progress-detail")
        yield Static(DUE_HELP, id="progress-help")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Mastery over time"
        table = self.query_one(DataTable)
        table.add_columns("", "Practiced", "Mastery", "Sess.", "Last")
        table.focus()
        self.action_reload()

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        if self.app.services is not None:
            self.load()

    @work(exclusive=True, group="progress-load", exit_on_error=False)
    async def load(self) -> None:
        from core.flows.tutor.progress import tracked

        self.items = await asyncio.to_thread(tracked, self.require_services().store)
        self.show_items()

    def show_items(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        width = max(20, table.size.width - OTHER_COLUMNS)
        for item in self.items:
            kind = "◆" if item.kind == "subtopic" else "●"
            table.add_row(
                kind,
                clip(item.title, width),
                mastery_cell(item.mastery),
                str(item.sessions),
                item.last_practiced[5:10],
                key=f"{item.kind}|{item.ref}",
            )
        if not self.items:
            self.query_one(MasteryChart).show("Nothing practiced yet", [])
            self.query_one("#progress-detail", Static).update(
                "Start a tutoring session (t): each answer the tutor evaluates adds a point here."
            )
            return
        keys = [(i.kind, i.ref) for i in self.items]
        if self.focus_on in keys:
            table.move_cursor(row=keys.index(self.focus_on), animate=False)
        self.show_chart()

    @on(DataTable.RowHighlighted, "#progress-items")
    def _highlighted(self) -> None:
        self.show_chart()

    def current(self) -> Tracked | None:
        row = self.query_one(DataTable).cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None

    @work(exclusive=True, group="progress-chart", exit_on_error=False)
    async def show_chart(self) -> None:
        from core.flows.tutor.progress import history

        item = self.current()
        if item is None:
            return
        store = self.require_services().store
        points = await asyncio.to_thread(history, store, item.kind, item.ref)
        self.query_one(MasteryChart).show(item.title, points)
        first = points[0].mastery if points else 0.0
        kind = "subtopic " + item.ref if item.kind == "subtopic" else "concept note"
        self.query_one("#progress-detail", Static).update(
            f"{item.title} ({kind}): {first:.0%} → {item.mastery:.0%} in {len(points)} "
            f"changes over {item.sessions} session(s); last practiced "
            f"{item.last_practiced[:16].replace('T', ' ')}; due score {item.priority:.2f}"
        )


def open_screen(app: NoemaApp, focus: tuple[str, str] | None = None) -> ProgressScreen:
    """The progress screen (home's and the tutor's key)."""
    return ProgressScreen(focus)
