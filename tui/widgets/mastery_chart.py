"""Mastery over time as pictures: a line chart of one concept or subtopic across sessions
(textual-plotext), and a one-line trend (Textual's Sparkline) for lists of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Sparkline
from textual_plotext import PlotextPlot

from core.flows.tutor.progress import MasteryPoint, Tracked
from tui.widgets.options import WidgetOptions


def session_starts(points: Sequence[MasteryPoint]) -> list[int]:
    """The 1-based positions where a new session's points begin."""
    starts, last = [], None
    for n, point in enumerate(points, start=1):
        if point.session_id != last:
            starts.append(n)
            last = point.session_id
    return starts


def when(stamp: str) -> str:
    """`MM-DD` of an ISO time (the chart's ticks)."""
    return stamp[5:10] if len(stamp) >= 10 else stamp


class MasteryChart(PlotextPlot):
    """One item's mastery (%) at each recorded change; ticks mark where each session began."""

    DEFAULT_CSS = "MasteryChart { height: 1fr; min-height: 8; }"

    shown: tuple[str, list[MasteryPoint]] = ("", [])
    """The title and points drawn last."""

    def show(self, title: str, points: Sequence[MasteryPoint]) -> None:
        self.shown = (title, list(points))
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.ylim(0, 100)
        plt.yticks([0, 25, 50, 75, 100])
        if not points:
            plt.title(f"{title}: not practiced yet")
            self.refresh()
            return
        xs = list(range(1, len(points) + 1))
        plt.plot(xs, [round(p.mastery * 100) for p in points], marker="braille")
        plt.scatter(xs, [round(p.mastery * 100) for p in points], marker="●")
        starts = session_starts(points)
        plt.xticks([float(n) for n in starts], [when(points[n - 1].recorded_at) for n in starts])
        plt.xlim(0.5, len(points) + 0.5)
        plt.title(f"{title} · mastery %")
        self.refresh()


def mastery_colour(value: float) -> str:
    return "green" if value >= 0.8 else "yellow" if value >= 0.4 else "red"


def ago(days: float) -> str:
    """`today`, `3d ago`."""
    return "today" if days < 1 else f"{days:.0f}d ago"


class TrendRow(Horizontal):
    """An item in one line: its title, mastery now, when last practiced, and the line of its
    history (a sparkline over its recorded changes, oldest first)."""

    DEFAULT_CSS = """
    TrendRow { height: 1; }
    TrendRow > .trend-title { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    TrendRow > .trend-value { width: 5; text-align: right; }
    TrendRow > .trend-ago { width: 8; text-align: right; color: $text-muted; }
    TrendRow > Sparkline, TrendRow > .no-trend { width: 12; height: 1; margin: 0 0 0 1; }
    TrendRow > .no-trend { color: $text-muted; }
    """

    def __init__(
        self, item: Tracked, values: Sequence[float], **kwargs: Unpack[WidgetOptions]
    ) -> None:
        super().__init__(**kwargs)
        self.item = item
        self.values = [float(v) for v in values] or [0.0]

    def compose(self) -> ComposeResult:
        yield Label(classes="trend-title")
        yield Label(classes="trend-value")
        yield Label(classes="trend-ago")
        yield Sparkline(self.values)
        yield Label("· 1 point", classes="no-trend")

    _drawn: tuple[object, ...] | None = None
    """What the row shows now (None until it is mounted: then `set` only keeps the item)."""

    def on_mount(self) -> None:
        self._drawn = ()
        self.set(self.item, self.values)

    def set(self, item: Tracked, values: Sequence[float]) -> None:
        """Show `item` in this row, in place: no widget is mounted or removed (the tutor
        shows the list again after every turn)."""
        self.item, self.values = item, [float(v) for v in values] or [0.0]
        if self._drawn is None:  # on_mount shows it
            return
        picture = (item.kind, item.title, round(item.mastery, 2), ago(item.days_since), self.values)
        if picture == self._drawn:
            return  # an update re-lays the screen out, for nothing
        self._drawn = picture
        kind = "◆ " if item.kind == "subtopic" else "● "
        self.query_one(".trend-title", Label).update(Text.assemble((kind, "dim"), item.title))
        value = Text(f"{item.mastery:.0%}", style=mastery_colour(item.mastery))
        self.query_one(".trend-value", Label).update(value)
        self.query_one(".trend-ago", Label).update(ago(item.days_since))
        # one value has no trend (a sparkline would draw it as a full bar)
        sparkline = self.query_one(Sparkline)
        sparkline.display = len(self.values) > 1
        sparkline.data = self.values
        self.query_one(".no-trend", Label).display = len(self.values) <= 1


class PracticeList(Vertical):
    """What is due for practice, most due first, each with its trend; hidden while nothing
    was practiced."""

    DEFAULT_CSS = """
    PracticeList { height: auto; border: round $secondary; padding: 0 1; }
    PracticeList.empty { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(classes="empty", id=id)
        self.border_title = "Due for practice"
        self._rows: list[TrendRow] = []
        """The rows shown (or being mounted), in order."""
        self._titles: tuple[str, str] | None = None
        """The border's title and subtitle (the list's title, and the key of its screen)."""

    def show(
        self, items: Sequence[tuple[Tracked, Sequence[float]]], hint: str = "", title: str = ""
    ) -> None:
        """Show `items`; `hint` (the key of the progress screen) goes in the border. Rows are
        updated in place when their number is unchanged: remounting them after every tutor
        turn cost more than the rest of the turn's drawing."""
        self.set_class(not items, "empty")
        titles = (title or "Due for practice", hint)
        if titles != self._titles:  # setting a border title redraws the list, changed or not
            self._titles = titles
            self.border_title, self.border_subtitle = titles
        if len(self._rows) == len(items):
            for row, (item, values) in zip(self._rows, items, strict=True):
                row.set(item, values)
            return
        self.remove_children()
        self._rows = [TrendRow(item, values) for item, values in items]
        self.mount_all(self._rows)
