"""Shared widgets: runs table, status panels, progress (stepper + bar) for workflow screens."""

from tui.widgets.progress import RunProgress, Stepper
from tui.widgets.runs_table import RunsTable, status_text
from tui.widgets.status import InfoPanel, mark

__all__ = ["InfoPanel", "RunProgress", "RunsTable", "Stepper", "mark", "status_text"]
