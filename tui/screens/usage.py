"""The usage screen: model calls, tokens, latency and cost from the traces, with a chart of
the tokens used per day (textual-plotext)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static
from textual_plotext import PlotextPlot

from tui.commands.usage import money, seconds
from tui.messages import ServicesReady
from tui.screens.base import NoemaScreen

if TYPE_CHECKING:
    from core.usage import Call, Grouping
    from tui.app import NoemaApp

WINDOWS = (7, 30, 90)
"""The day windows `d` cycles through."""
COLUMNS = ("Calls", "Failed", "Prompt tokens", "Completion tokens", "Median", "p95", "Cost")


class UsageScreen(NoemaScreen):
    """Where the model time and tokens went: per flow, role, model or day."""

    DEFAULT_CSS = """
    UsageScreen #usage-total { height: auto; padding: 0 1; }
    UsageScreen #usage-chart { height: 14; }
    UsageScreen #usage-by { height: 1; padding: 0 1; text-style: bold; }
    UsageScreen #usage-table { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", id="usage.back"),
        Binding("b", "next_grouping", "Group by", id="usage.by"),
        Binding("d", "next_window", "Days", id="usage.days"),
        Binding("r", "reload", "Refresh", id="usage.refresh"),
    ]

    def __init__(self, app: Any = None) -> None:
        super().__init__()
        self.grouping: Grouping = "flow"
        self.days = 30
        self.calls: list[Call] = []

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static("", id="usage-total")
        yield PlotextPlot(id="usage-chart")
        yield Static("", id="usage-by")
        yield DataTable(id="usage-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Usage"
        self.action_reload()

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.action_reload()

    # -- actions ---------------------------------------------------------------------------

    def action_reload(self) -> None:
        if self.app.services is None:
            self.query_one("#usage-total", Static).update("services are still opening…")
            return
        self.load()

    def action_next_grouping(self) -> None:
        from core.usage import GROUPINGS

        self.grouping = GROUPINGS[(GROUPINGS.index(self.grouping) + 1) % len(GROUPINGS)]
        self.show_table()

    def action_next_window(self) -> None:
        self.days = WINDOWS[(WINDOWS.index(self.days) + 1) % len(WINDOWS)]
        self.action_reload()

    # -- loading and showing ---------------------------------------------------------------

    @work(exclusive=True, group="usage-load", exit_on_error=False)
    async def load(self) -> None:
        from core.usage import load_calls

        self.calls = await asyncio.to_thread(load_calls, self.require_services().store, self.days)
        self.show_total()
        self.show_chart()
        self.show_table()

    def show_total(self) -> None:
        from core.usage import total

        window = f"the last {self.days} days"
        if not self.calls:
            text = f"No model calls in {window} (d: another window)."
        else:
            t = total(self.calls)
            text = (
                f"{t.calls} model calls in {window} ({t.failed} failed): "
                f"{t.prompt_tokens:,} prompt + {t.completion_tokens:,} completion tokens · "
                f"median {seconds(t.median_ms)} · p95 {seconds(t.p95_ms)} · "
                f"cost {money(t.cost)}"
            )
        self.query_one("#usage-total", Static).update(text)

    def show_chart(self) -> None:
        from core.usage import daily_series

        series = daily_series(self.calls, self.days)
        chart = self.query_one(PlotextPlot)
        plt = chart.plt
        plt.clear_data()
        plt.clear_figure()
        days = [u.key[5:] for u in series]  # MM-DD
        prompt = [u.prompt_tokens / 1000 for u in series]
        completion = [u.completion_tokens / 1000 for u in series]
        # plotext takes `labels` (textual-plotext's signature says `label`, which plotext drops)
        plt.stacked_bar(days, [prompt, completion], labels=["prompt", "completion"])  # type: ignore[call-arg]
        plt.title("Thousands of tokens per day")
        chart.refresh()

    def show_table(self) -> None:
        from core.usage import summarize

        others = {"flow": "role", "role": "model", "model": "day", "day": "flow"}
        self.query_one("#usage-by", Static).update(
            f"By {self.grouping}  (b: by {others[self.grouping]} · d: days)"
        )
        table = self.query_one("#usage-table", DataTable)
        table.clear(columns=True)
        table.add_columns(self.grouping.capitalize(), *COLUMNS)
        for u in summarize(self.calls, self.grouping):
            table.add_row(
                u.key,
                str(u.calls),
                str(u.failed),
                f"{u.prompt_tokens:,}",
                f"{u.completion_tokens:,}",
                seconds(u.median_ms),
                seconds(u.p95_ms),
                money(u.cost),
                key=u.key,
            )


def open_screen(app: NoemaApp) -> UsageScreen:
    """The factory the app's screen registry calls."""
    return UsageScreen(app)
