"""A read-only report in a modal (the lessons' savings report): scrolls, escape closes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static


class ReportModal(ModalScreen[None]):
    """A title and a text; escape (or q) closes it."""

    DEFAULT_CSS = """
    ReportModal { align: center middle; }
    ReportModal > Vertical { width: 90%; height: 80%; border: thick $accent;
                             background: $surface; padding: 0 1; }
    ReportModal VerticalScroll { height: 1fr; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="report.close")]

    def __init__(self, title: str, text: str | Text) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"{self.title_text}  (esc: close)", classes="section")
            with VerticalScroll():
                yield Static(self.text, id="report-text")
