"""A yes/no question before something that cannot be taken back (quitting mid-run, approving a
note that did not pass)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from tui.keys import key_for


class ConfirmModal(ModalScreen[bool]):
    """`y` (or the first button) answers True; `n` or escape answers False."""

    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    ConfirmModal > Vertical {
        width: 76; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmModal #confirm-title { text-style: bold; }
    ConfirmModal #confirm-body { margin: 1 0; height: auto; }
    ConfirmModal Horizontal { height: auto; align-horizontal: right; }
    ConfirmModal Button { margin: 0 0 0 2; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: str | Text, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.title_text, self.body, self.yes, self.no = title, body, yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="confirm-title", markup=False)
            yield Static(self.body, id="confirm-body", markup=False)
            with Horizontal():
                yield Button(self.yes, variant="warning", id="confirm-yes")
                yield Button(self.no, variant="primary", id="confirm-no")

    def on_mount(self) -> None:
        yes, no = key_for(self, "confirm.yes"), key_for(self, "confirm.no")
        self.query_one("#confirm-yes", Button).label = f"{self.yes} ({yes})"
        self.query_one("#confirm-no", Button).label = f"{self.no} ({no})"
        self.query_one("#confirm-no", Button).focus()  # enter does the safe thing

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed, "#confirm-yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def _no(self) -> None:
        self.dismiss(False)
