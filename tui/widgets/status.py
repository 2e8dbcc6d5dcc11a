"""Small status panels: a titled key/value panel and a status line with a state mark."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Unpack

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from tui.widgets.options import WidgetOptions

MARKS = {"ok": ("●", "green"), "fail": ("●", "red"), "busy": ("◌", "yellow"), "off": ("○", "dim")}


def mark(state: str, text: str) -> Text:
    """`● text` coloured by state (ok, fail, busy, off)."""
    symbol, style = MARKS.get(state, MARKS["off"])
    return Text.assemble((symbol + " ", style), text)


class InfoPanel(Static):
    """A bordered panel of `label: value` rows; `show_rows` replaces them."""

    def __init__(self, title: str, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.border_title = title
        self.rows: list[tuple[str, str | Text]] = []

    @property
    def text(self) -> str:
        """The rows as plain text, one `label: value` per line (for tests and logs)."""
        return "\n".join(f"{label}: {value}" for label, value in self.rows)

    def show_rows(self, rows: Iterable[tuple[str, str | Text]]) -> None:
        self.rows = list(rows)
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for label, value in self.rows:
            table.add_row(label, value)
        self.update(table)
