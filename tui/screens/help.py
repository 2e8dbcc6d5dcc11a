"""The help screen: every binding active on the screen it was opened from, with its id."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label


def binding_rows(screen: Screen) -> list[tuple[str, str, str]]:
    """(key, description, binding id) of each active binding, sorted by description."""
    rows = []
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.system and not binding.id:
            continue
        display = screen.app.get_key_display(binding) if binding.key == key else key
        rows.append((display, binding.description or binding.action, binding.id or ""))
    return sorted(set(rows), key=lambda row: (row[1].lower(), row[0]))


class HelpScreen(ModalScreen[None]):
    """Keys of the screen below; ids are what `tui.keymap` in settings remaps."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help.close"),
        Binding("question_mark", "dismiss", "Close", show=False, id="help.close_help"),
    ]

    def __init__(self, below: Screen) -> None:
        super().__init__()
        self.rows = binding_rows(below)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label(
                "Keys  (remap any id with [tui] keymap in settings)", id="help-title", markup=False
            )
            table = DataTable(cursor_type="row", id="help-table")
            table.add_columns("Key", "Action", "Binding id")
            for row in self.rows:
                table.add_row(*row)
            yield table
            yield Label("Esc closes · Ctrl+P opens the command palette", id="help-hint")

    def action_dismiss(self) -> None:
        self.dismiss(None)
