"""The runs table: one row per run, keyboard-navigable, keyed by run id."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import DataTable

from core.store.runs import RunRecord

STATUS_STYLE = {
    "queued": "cyan",
    "running": "bold yellow",
    "awaiting_review": "bold magenta",
    "done": "green",
    "failed": "bold red",
    "cancelled": "dim",
}
STATUS_LABEL = {"awaiting_review": "awaiting review"}


def status_text(status: str) -> Text:
    """A run status, coloured."""
    return Text(STATUS_LABEL.get(status, status), style=STATUS_STYLE.get(status, ""))


class RunsTable(DataTable):
    """Runs, newest first; `selected_run_id` is the run under the cursor."""

    COLUMNS = ("Status", "Flow", "Target", "Updated", "Run")

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.records: dict[str, RunRecord] = {}

    def on_mount(self) -> None:
        self.add_columns(*self.COLUMNS)

    def show_runs(self, runs: Iterable[RunRecord], waiting_for: str | None = None) -> None:
        """Replace the rows, keeping the cursor on the same run when it is still listed.
        Queued runs show `waiting for model X` while `waiting_for` names the missing model."""
        keep = self.selected_run_id
        self.clear()
        self.records = {}
        for run in runs:
            self.records[run.id] = run
            updated = run.updated_at[:19].replace("T", " ")
            status = status_text(run.status)
            if waiting_for and run.status == "queued":
                status = Text(f"waiting for model {waiting_for}", style="yellow")
            self.add_row(
                status,
                run.flow,
                run.target or "-",
                updated,
                run.id[:8],
                key=run.id,
            )
        if keep in self.records:
            self.move_cursor(row=self.get_row_index(keep))

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
