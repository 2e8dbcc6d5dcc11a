"""The runs table: one row per run, keyboard-navigable, keyed by run id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Unpack

from rich.text import Text
from textual.widgets import DataTable

from core.store.runs import RunRecord
from tui.text import clip_path
from tui.widgets.options import WidgetOptions

STATUS_STYLE = {
    "queued": "cyan",
    "running": "bold yellow",
    "awaiting_review": "bold magenta",
    "done": "green",
    "failed": "bold red",
    "cancelled": "dim",
}
STATUS_LABEL = {"awaiting_review": "awaiting review"}


def status_text(status: str, interrupted: bool = False) -> Text:
    """A run status, coloured; a queued run that was interrupted says so."""
    if interrupted:
        return Text("interrupted ↻", style="bold cyan")
    return Text(STATUS_LABEL.get(status, status), style=STATUS_STYLE.get(status, ""))


class RunsTable(DataTable):
    """Runs, newest first; `selected_run_id` is the run under the cursor. The target column
    takes the width the others leave (a long path keeps its end; Enter opens the run)."""

    COLUMNS = ("Status", "Flow", "Target", "Updated", "Run")
    FIXED = 16 + 13 + 16 + 8 + 2 * 5
    """Cells of every column but the target, with the cell padding of the five."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.records: dict[str, RunRecord] = {}
        self._waiting_for: str | None = None

    @staticmethod
    def status_of(run: RunRecord, waiting_for: str | None) -> Text:
        """The status cell: a queued run waiting for a missing model says which."""
        if waiting_for and run.status == "queued":
            return Text(f"waiting for model {waiting_for}", style="yellow")
        return status_text(run.status, run.interrupted)

    def on_mount(self) -> None:
        self.show_runs([])

    def show_runs(self, runs: Iterable[RunRecord], waiting_for: str | None = None) -> None:
        """Replace the rows, keeping the cursor on the same run when it is still listed.
        Queued runs show `waiting for model X` while `waiting_for` names the missing model
        (the status column widens for it; the target column takes what is left)."""
        keep = self.selected_run_id
        self._waiting_for = waiting_for
        runs = list(runs)
        statuses = [self.status_of(run, waiting_for) for run in runs]
        status_width = max([16, *(status.cell_len for status in statuses)])
        available = self.scrollable_content_region.width or 120
        width = max(16, available - self.FIXED - (status_width - 16))
        self.clear(columns=True)
        for label, column_width in zip(self.COLUMNS, (status_width, 13, width, 16, 8), strict=True):
            self.add_column(label, width=column_width)
        self.records = {}
        for run, status in zip(runs, statuses, strict=True):
            self.records[run.id] = run
            updated = run.updated_at[:16].replace("T", " ")
            self.add_row(
                status,
                run.flow,
                clip_path(run.target or "-", width),
                updated,
                run.id[:8],
                key=run.id,
            )
        if keep in self.records:
            self.move_cursor(row=self.get_row_index(keep))

    def on_resize(self) -> None:
        self.show_runs(list(self.records.values()), waiting_for=self._waiting_for)

    def count(self, status: str) -> int:
        """How many listed runs have this status."""
        return sum(1 for run in self.records.values() if run.status == status)

    @property
    def selected_run_id(self) -> str | None:
        """Id of the run under the cursor (None when the table is empty)."""
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:  # noqa: BLE001 - no valid cursor
            return None
        return str(key.value) if key.value is not None else None

    @property
    def selected_run(self) -> RunRecord | None:
        run_id = self.selected_run_id
        return self.records.get(run_id) if run_id else None
