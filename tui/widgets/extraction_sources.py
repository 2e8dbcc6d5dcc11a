"""The source notes and where each stands: processed, unprocessed, queued, running,
awaiting review, failed (core.overview.source_statuses)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Unpack

from rich.text import Text
from textual.widgets import DataTable

from core.overview import SourceStatus
from tui.text import clip
from tui.widgets.options import WidgetOptions

STATUS_STYLES = {
    "awaiting review": "bold magenta",
    "running": "yellow",
    "queued": "cyan",
    "failed": "red",
    "unprocessed": "white",
    "processed": "green",
}

SOURCE_WIDTH, STATUS_WIDTH = 21, len("unprocessed")
STATUS_LABEL = {"awaiting review": "to review"}
"""How the narrow status column names a status (the detail below the list says it in full)."""


class SourcesTable(DataTable):
    """One row per source note; the row key is its path."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.rows_by_path: dict[str, SourceStatus] = {}

    def on_mount(self) -> None:
        self.show([])

    def source_width(self) -> int:
        """The name column takes what the status column and the cell padding leave."""
        width = self.scrollable_content_region.width or SOURCE_WIDTH + STATUS_WIDTH + 4
        return max(10, width - STATUS_WIDTH - 4)

    def show(self, rows: list[SourceStatus]) -> None:
        # fixed widths (auto widths lagged behind a refresh: "awaiting re"), fitted to the pane
        current = self.current_path()
        self.clear(columns=True)
        width = self.source_width()
        self.add_column("source", width=width)
        self.add_column("status", width=STATUS_WIDTH)
        self.rows_by_path = {r[0]: r for r in rows}
        for path, _title, status, _run in rows:
            self.add_row(
                clip(PurePosixPath(path).stem, width),
                Text(STATUS_LABEL.get(status, status), style=STATUS_STYLES.get(status, "")),
                key=path,
            )
        if current in self.rows_by_path:
            self.move_cursor(row=self.get_row_index(current))

    def on_resize(self) -> None:
        if self.rows_by_path:
            self.show(list(self.rows_by_path.values()))

    def current_path(self) -> str | None:
        if not self.row_count:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
