"""The live view of a normalization run: iteration, merges found, a sparkline of the trend
of new unique merges, the weak count and the latest merges and activity."""

from __future__ import annotations

from typing import Any, Unpack

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Sparkline, Static

from tui.keys import key_for
from tui.widgets.options import WidgetOptions

MAX_LINES = 5


class NormalizationLive(Vertical):
    """Fed with the progress events' data (spec 000's NormalizationStreamEvent fields)."""

    DEFAULT_CSS = """
    NormalizationLive { height: auto; padding: 0 1; border: round $primary; }
    NormalizationLive #live-stats { text-style: bold; }
    NormalizationLive Sparkline { height: 2; margin: 0; }
    NormalizationLive #live-latest { height: auto; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.data: dict[str, Any] = {}
        self.latest: list[tuple[bool, str]] = []
        """(accepted?, "A = B" or "A ≠ B (reason)") in order of arrival."""

    def compose(self) -> ComposeResult:
        yield Label("No run yet.", id="live-stats")
        yield Label("new unique merges per iteration", classes="dim", id="live-trend-title")
        yield Sparkline([], id="live-trend")
        yield Static("", id="live-activity")
        yield Static("", id="live-latest")

    def on_mount(self) -> None:
        start = key_for(self, "normalization.start")
        if not self.data:
            self.query_one("#live-stats", Label).update(
                f"No run yet: press {start} to look for duplicate concepts."
            )
            self.show_details(False)  # one line until a run reports: room for the review

    def show_details(self, shown: bool) -> None:
        for part in ("#live-trend-title", "#live-trend", "#live-activity", "#live-latest"):
            self.query_one(part).display = shown

    def apply(self, data: dict[str, Any]) -> None:
        """Show one progress event."""
        if not self.data:
            self.show_details(True)
        self.data = data
        stats = (
            f"{data.get('phase', '')} · iteration {data.get('iteration', 0)} · "
            f"merges found {data.get('merges_found', 0)} · total {data.get('total_merges', 0)} · "
            f"weak {data.get('weak_count', 0)}"
        )
        trend = list(data.get("new_unique_merges_trend") or [])
        if trend:
            self.query_one("#live-trend", Sparkline).data = [float(x) for x in trend]
        activity = str(data.get("agent_activity", ""))
        self.query_one("#live-activity", Static).update(activity)
        if data.get("phase") == "complete":  # one line: the review below is what matters now
            self.query_one("#live-stats", Label).update(f"{stats} — {activity}")
            self.show_details(False)
            return
        self.query_one("#live-stats", Label).update(stats)
        for merge in data.get("latest_merges") or []:
            self.latest.append((True, f"{merge.get('a_name')} = {merge.get('b_name')}"))
        for weak in data.get("latest_weak") or []:
            why = weak.get("reason", "weak")
            self.latest.append((False, f"{weak.get('a_name')} ≠ {weak.get('b_name')} ({why})"))
        text = Text()
        for accepted, line in self.latest[-MAX_LINES:]:
            mark, style = ("+ ", "green") if accepted else ("× weak: ", "red")
            text.append(mark, style=style).append(line + "\n")
        self.query_one("#live-latest", Static).update(text)
