"""A box for answers that may be long: it grows with its text, enter sends, and a key of its
own starts a new line.

Which keys reach the app decides the new-line key: in every terminal, and inside tmux, ctrl+j
arrives as itself (a line feed, where enter is a carriage return); shift+enter and alt+enter
arrive as such only where the terminal (and tmux) report modified keys, and as a plain enter
elsewhere. So ctrl+j is the key the hint names; the others work where they arrive.
"""

from __future__ import annotations

from typing import Unpack

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from tui.widgets.options import WidgetOptions

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")
NEWLINE_HINT = "ctrl+j new line"


class AnswerBox(TextArea):
    """A TextArea that sends on enter (`Submitted`) and grows up to `max-height` lines; the
    answer's text is `value` (as an Input's)."""

    DEFAULT_CSS = """
    AnswerBox { height: auto; min-height: 3; max-height: 10; }
    """

    class Submitted(Message):
        """Enter was pressed in the box; `value` is its text."""

        def __init__(self, box: AnswerBox, value: str) -> None:
            super().__init__()
            self.box = box
            self.value = value

        @property
        def control(self) -> AnswerBox:
            return self.box

    def __init__(self, placeholder: str = "", **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(
            "", soft_wrap=True, tab_behavior="focus", placeholder=placeholder, **kwargs
        )
        self.border_subtitle = f"enter sends · {NEWLINE_HINT}"

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        """Replace the text; the cursor goes to its end (a draft goes on where it stopped)."""
        self.text = text
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        """Enter sends and the new-line keys add a line, before TextArea (for which enter is a
        new line) sees them."""
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            await self.action_submit()
        elif event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
        else:
            await super()._on_key(event)

    async def action_submit(self) -> None:
        self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        if not self.read_only:
            start, end = self.selection
            self.replace("\n", start, end, maintain_selection_offset=False)
