"""A message of the tutor chat as lines (tutor_chat.py draws them): who speaks, in their
colour, then the tutor's Markdown rendered (chat_markdown.py) or the learner's words as typed;
and the look of the reply while it streams."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tui.widgets.chat_markdown import BlockKey, render_markdown, render_text, shown_text

STYLES = {
    "teaching": ("Tutor", "bold cyan"),
    "feedback": ("Feedback", "bold green"),
    "redirect": ("Tutor", "bold yellow"),
    "closing": ("Summary", "bold magenta"),
    "answer": ("You", "bold"),
}

LIVE_LABEL = Text("Tutor: ", "bold cyan")
LIVE_STYLE = Style(dim=True)
"""The streamed text's look until it becomes the message (put over its lines as they are
rendered for the message, so that the message can take them)."""
STOPPED = Text("[stopped]", "dim italic")
WIDTHS_KEPT = 2
"""Widths a message keeps its lines for (a resize back and forth renders nothing again)."""


def message_label(message: Mapping[str, Any]) -> Text:
    """Who speaks, in their colour."""
    if message.get("role") == "student":
        who, style = STYLES["answer"]
    else:
        who, style = STYLES.get(message.get("kind") or "teaching", STYLES["teaching"])
    return Text(f"{who}: ", style)


class ChatMessage:
    """One message and its lines, kept per width: the tutor's Markdown rendered, the learner's
    words as they typed them (in italics: their own text, not Markdown)."""

    def __init__(self, message: Mapping[str, Any]) -> None:
        self.content = str(message.get("content", ""))
        self.student = message.get("role") == "student"
        self.stopped = bool(message.get("stopped"))  # the learner stopped it as it streamed
        self.label = message_label(message)
        self._lines: dict[int, list[Strip]] = {}

    def lines(
        self, console: Any, width: int, rendered: Mapping[BlockKey, list[Strip]] | None = None
    ) -> list[Strip]:
        """The message's lines at `width`, then the blank line that ends a message; blocks
        found in `rendered` (the streamed reply's) are not rendered again."""
        if width not in self._lines:
            if len(self._lines) >= WIDTHS_KEPT:
                self._lines.pop(next(iter(self._lines)))
            self._lines[width] = [*self._render(console, width, rendered), Strip.blank(width)]
        return self._lines[width]

    def _render(
        self, console: Any, width: int, rendered: Mapping[BlockKey, list[Strip]] | None
    ) -> list[Strip]:
        if self.student:
            text = Text.assemble(self.label, shown_text(self.content), style="italic")
            return render_text(console, text, width)
        lines, _ = render_markdown(console, self.content, width, self.label, cache=rendered)
        if self.stopped:
            lines += render_text(console, STOPPED, width)
        return lines


def muted(lines: list[Strip], label_cells: int) -> list[Strip]:
    """`lines` in `LIVE_STYLE`, but for the label that starts them (its first cells)."""
    if not lines:
        return []
    first = lines[0]
    head = first.crop(0, label_cells)
    tail = first.crop(label_cells, first.cell_length).apply_style(LIVE_STYLE)
    return [Strip.join([head, tail]), *(line.apply_style(LIVE_STYLE) for line in lines[1:])]
