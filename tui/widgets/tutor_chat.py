"""The tutor chat: the conversation as lines, and the tutor's message as it streams in.

A session must not get slower as it grows, and drawing is what a turn costs on screen, so the
chat is one scrolling widget drawn line by line (Textual's line API), not a widget per message:
a message is wrapped into lines once (again only when the width changes), a new message adds
its lines, and a frame copies the visible ones. While the tutor thinks, a "Tutor: …" block
waits at the bottom; streamed tokens are drawn into it at most once per frame, and when the
message arrives the block gives way to it in place (same text, same lines, no longer muted).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

STYLES = {
    "teaching": ("Tutor", "bold cyan"),
    "feedback": ("Feedback", "bold green"),
    "redirect": ("Tutor", "bold yellow"),
    "closing": ("Summary", "bold magenta"),
    "answer": ("You", "bold"),
}

FRAME_S = 1 / 60
"""Textual's frame period (60 frames per second by default)."""

LIVE_PREFIX = Text("Tutor: ", "bold cyan")
LIVE_STYLE = "dim"
"""The streamed text's look until it becomes the message."""


def live_text(streamed: str) -> Text:
    return LIVE_PREFIX + Text(streamed, LIVE_STYLE)


def message_text(message: Mapping[str, Any]) -> Text:
    """One message: who speaks, then what they say (the learner's in italics)."""
    if message.get("role") == "student":
        who, style = STYLES["answer"]
        return Text.assemble((f"{who}: ", style), str(message.get("content", "")), style="italic")
    kind = message.get("kind") or "teaching"
    who, style = STYLES.get(kind, STYLES["teaching"])
    text = Text.assemble((f"{who}: ", style), str(message.get("content", "")))
    if message.get("stopped"):  # the learner stopped it as it streamed
        text.append(" [stopped]", "dim italic")
    return text


class TutorChat(ScrollView, can_focus=True):
    """The conversation, with a live block for the tutor message being streamed."""

    ALLOW_SELECT = True

    DEFAULT_CSS = """
    TutorChat { height: 1fr; border: round $primary; padding: 0 1; scrollbar-gutter: stable; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Chat"
        self.rendered = 0
        """How many messages of the conversation are shown."""
        self.streamed = ""
        self.version = 0
        """Changes made to what the chat shows; `drawn_version` is the last one rendered."""
        self.drawn_version = 0
        self.changed_region = Region()
        """Where on screen the last change shows (what `draw_now` must repaint)."""
        self.first_token_version: int | None = None
        """The change that first showed the current reply's tokens."""
        self._texts: list[Text] = []
        self._lines: list[Strip] = []
        """The finished messages' lines at `_width`, each message followed by a blank line."""
        self._live: Text | None = None
        self._live_lines: list[Strip] = []
        self._width = 0
        self._flush_pending = False
        self._last_flush = 0.0
        self._line_style = Style()

    # -- what the chat holds -------------------------------------------------------------

    @property
    def awaiting_reply(self) -> bool:
        """Whether a live block waits for the tutor's reply."""
        return self._live is not None

    @property
    def live(self) -> Text | None:
        """The live block's text (None when no reply is awaited)."""
        return self._live

    @property
    def message_count(self) -> int:
        return len(self._texts)

    def text_lines(self) -> list[str]:
        """The chat as plain text, line by line (finished messages, then the live block)."""
        return [strip.text.rstrip() for strip in (*self._lines, *self._live_lines)]

    # -- showing messages ----------------------------------------------------------------

    def show_messages(self, conversation: Sequence[Mapping[str, Any]]) -> None:
        """Add the messages not shown yet (the conversation only grows).

        Messages go above a live block that still waits; once tokens were streamed, the
        block gives way to the message that carries them."""
        pending = conversation[self.rendered :]
        if not pending and not self.streamed:
            return
        self.rendered = len(conversation)
        first = len(self._lines)  # lines above do not change
        if self.streamed:
            self._forget_live()
        self._append(pending)
        self._lines_changed(first)

    def expect_reply(self, conversation: Sequence[Mapping[str, Any]] | None = None) -> None:
        """Show that the tutor is writing (the block its tokens will stream into), after the
        messages of `conversation` not shown yet."""
        self._forget_live()
        if conversation:
            self._append(conversation[self.rendered :])
            self.rendered = len(conversation)
        self._live = live_text("…")
        self._live_lines = self._wrap(self._live)
        self.first_token_version = None
        self._lines_changed()

    def stream(self, token: str) -> None:
        """Append a token to the tutor message being written (drawn by `_flush`).

        The first token is drawn at once; later ones at most once per frame (drawing them
        more often shows nothing more and takes the loop from the stream)."""
        self.streamed += token
        if self._flush_pending:
            return
        self._flush_pending = True
        wait = self._last_flush + FRAME_S - time.perf_counter()
        if wait <= 0:
            self.call_later(self._flush)
        else:
            self.set_timer(wait, self._flush, name="tutor-chat-flush")

    def end_stream(self) -> None:
        """Forget the streamed tokens; a live block still waiting goes away."""
        if self._live is None and not self.streamed:
            return
        first = len(self._lines)
        self._forget_live()
        self._lines_changed(first)

    def clear_all(self) -> None:
        self.rendered = 0
        self._texts.clear()
        self._lines.clear()
        self._forget_live()
        self._lines_changed()

    # -- drawing -------------------------------------------------------------------------

    def _flush(self) -> None:
        """Draw the tokens streamed since the last flush: one update for all of them."""
        self._flush_pending = False
        if not self.streamed:
            return
        self._last_flush = time.perf_counter()
        if self._live is None:
            self.expect_reply()
        self._live = live_text(self.streamed.rstrip())  # as the message will read
        self._live_lines = self._wrap(self._live)
        self._lines_changed(len(self._lines))
        if self.first_token_version is None:
            self.first_token_version = self.version

    def _append(self, messages: Sequence[Mapping[str, Any]]) -> None:
        for message in messages:
            text = message_text(message)
            self._texts.append(text)
            self._lines.extend(self._wrap(text))

    def _forget_live(self) -> None:
        self.streamed = ""
        self._live, self._live_lines = None, []

    def _wrap(self, text: Text) -> list[Strip]:
        """`text`'s lines at the chat's width, and the blank line that ends a message."""
        width = self._width
        if width <= 0:
            return []  # not laid out yet: `on_resize` wraps everything once the width is known
        console = self.app.console
        lines = console.render_lines(text, console.options.update_width(width), pad=False)
        return [*Strip.from_lines(lines), Strip.blank(width)]

    def _lines_changed(self, first: int = 0) -> None:
        """Redraw from line `first` on (all lines from there may have changed).

        When the number of lines changed, the scroll range follows (a layout) and the view
        follows the end, unless the learner scrolled up to read; then everything is redrawn."""
        size = Size(self._width, len(self._lines) + len(self._live_lines))
        self.version += 1
        if size != self.virtual_size:
            following = self.scroll_y >= self.max_scroll_y - 1
            self.virtual_size = size
            if following:
                # forced: the scrollbar that allows it appears only with the next layout
                self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
            self.changed_region = self.region
            self.refresh()
            return
        view = self.scrollable_content_region
        top = max(0, first - round(self.scroll_y))
        if top >= view.height:
            self.changed_region = Region(view.x, view.bottom, view.width, 0)
            return
        self.changed_region = Region(view.x, view.y + top, view.width, view.height - top)
        self.refresh(Region(0, top, view.width, view.height - top))

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._width = width
            self._lines = [strip for text in self._texts for strip in self._wrap(text)]
            self._live_lines = self._wrap(self._live) if self._live is not None else []
            self._lines_changed()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._line_style = self.rich_style  # once per frame: it walks the ancestors' styles
        self.drawn_version = self.version
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        style = self._line_style
        if index < len(self._lines):
            strip = self._lines[index]
        elif index - len(self._lines) < len(self._live_lines):
            strip = self._live_lines[index - len(self._lines)]
        else:
            return Strip.blank(width, style)
        if self.text_selection is not None:
            strip = self._selected(strip, index)
        return self._finish_line(strip, index, scroll_x, width)

    def _finish_line(self, strip: Strip, index: int, scroll_x: int, width: int) -> Strip:
        """A stored line as drawn: cropped to the view, on the chat's background, and marked
        with its place (Textual maps the mouse to text with it, for selecting)."""
        style = self._line_style
        line = strip.crop_extend(scroll_x, scroll_x + width, style).apply_style(style)
        return line.apply_offsets(scroll_x, index)

    # -- selecting text with the mouse (and copying it) --------------------------------------

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under the mouse selection, line by line as the chat shows it."""
        return selection.extract("\n".join(self.text_lines())), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _selected(self, strip: Strip, index: int) -> Strip:
        """`strip` with the selected part of line `index` highlighted."""
        selection = self.text_selection
        span = selection.get_span(index) if selection is not None else None
        if span is None:
            return strip
        start, end = span
        end = strip.cell_length if end == -1 else end
        highlight = self.screen.get_component_rich_style("screen--selection")
        marked = [
            Segment(text, (style or Style()) + highlight, control)
            for text, style, control in strip.crop(start, end)
        ]
        return Strip.join([strip.crop(0, start), Strip(marked), strip.crop(end)])
