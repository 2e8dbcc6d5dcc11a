"""The tutor chat: the conversation as lines, and the tutor's message as it streams in.

A session must not get slower as it grows, and drawing is what a turn costs on screen, so the
chat is one scrolling widget drawn line by line (Textual's line API), not a widget per message:
a message is rendered into lines once per width (its Markdown through Rich, chat_markdown.py),
a new message adds its lines, and a frame copies the visible ones. While the tutor thinks, a
"Tutor: …" block waits at the bottom; streamed tokens are rendered into it at most once per
frame (only the block of the text that changed is rendered again), and when the message
arrives the block gives way to it in place (same text, same lines, no longer muted): the
message takes the block's rendered Markdown, so the learner does not wait on its rendering.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from tui.widgets.chat_markdown import BlockKey, render_markdown
from tui.widgets.chat_message import LIVE_LABEL, ChatMessage, muted
from tui.widgets.options import WidgetOptions

FRAME_S = 1 / 60
"""Textual's frame period (60 frames per second by default)."""
RENDER_SHARE = 3
"""A flush waits at least this many times its own render's cost after the last one: a long
reply's rendering never takes more than a share of the loop from the stream."""


class TutorChat(ScrollView, can_focus=True):
    """The conversation, with a live block for the tutor message being streamed."""

    ALLOW_SELECT = True

    DEFAULT_CSS = """
    TutorChat { height: 1fr; border: round $primary; padding: 0 1; scrollbar-gutter: stable; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
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
        self._messages: list[ChatMessage] = []
        self._lines: list[Strip] = []
        """The finished messages' lines at `_width`, each message followed by a blank line."""
        self._live: str | None = None
        """The live block's Markdown (None when no reply is awaited)."""
        self._live_lines: list[Strip] = []
        self._live_blocks: dict[BlockKey, list[Strip]] = {}
        """The live block's rendered blocks, for its next render (`render_markdown`)."""
        self._width = 0
        self._flush_pending = False
        self._reply_written = False
        """The reply's text is complete (its message comes next): no more flushes."""
        self._last_flush = 0.0
        self._render_cost = 0.0
        self._last_end = 0.0
        """The end of the scroll range when the lines or the size last changed."""
        self._line_style = Style()
        self._view: tuple[int, int, int] | None = None
        """What the frame being drawn shows (`_view_now`), while it is drawn."""
        self._drawn: dict[int, Strip] = {}
        """Lines as last drawn, by index, for `_drawn_for` (a scroll redraws every line in
        view: finishing them again cost most of a frame)."""
        self._drawn_for: tuple[int, int, Style] | None = None
        """(scroll x, width, background) the lines in `_drawn` were drawn with."""

    # -- what the chat holds -------------------------------------------------------------

    @property
    def awaiting_reply(self) -> bool:
        """Whether a live block waits for the tutor's reply."""
        return self._live is not None

    @property
    def live(self) -> str | None:
        """The live block's Markdown (None when no reply is awaited)."""
        return self._live

    @property
    def live_lines(self) -> list[Strip]:
        """The live block's lines as drawn (muted until the reply becomes the message)."""
        return list(self._live_lines)

    @property
    def message_count(self) -> int:
        return len(self._messages)

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
        replied = bool(self.streamed)
        streamed = self._live_blocks if replied else {}
        if replied:
            self._forget_live()
        self._append(pending, streamed)
        self._lines_changed(first)
        if replied and self.first_token_version is None:  # its tokens first show in it
            self.first_token_version = self.version

    def expect_reply(self, conversation: Sequence[Mapping[str, Any]] | None = None) -> None:
        """Show that the tutor is writing (the block its tokens will stream into), after the
        messages of `conversation` not shown yet."""
        first = len(self._lines)  # lines above do not change
        self._forget_live()
        if conversation:
            self._append(conversation[self.rendered :])
            self.rendered = len(conversation)
        self._set_live("…")
        self.first_token_version = None
        self._lines_changed(first)

    def stream(self, token: str) -> None:
        """Append a token to the tutor message being written (drawn by `_flush`).

        The first token is drawn at once; later ones at most once per frame (drawing them
        more often shows nothing more and takes the loop from the stream)."""
        self.streamed += token
        if self._flush_pending:
            return
        self._flush_pending = True
        pause = max(FRAME_S, RENDER_SHARE * self._render_cost)
        wait = self._last_flush + pause - time.perf_counter()
        if wait <= 0:
            self.call_later(self._flush)
        else:
            self.set_timer(wait, self._flush, name="tutor-chat-flush")

    def reply_written(self) -> None:
        """The reply's text is complete, and its message comes next: tokens not drawn yet
        are drawn with it (once, as the message), not first in the live block (once the
        first tokens were drawn: they show that the reply is coming)."""
        self._reply_written = True

    def end_stream(self) -> None:
        """Forget the streamed tokens; a live block still waiting goes away."""
        if self._live is None and not self.streamed:
            return
        first = len(self._lines)
        self._forget_live()
        self._lines_changed(first)

    def clear_all(self) -> None:
        self.rendered = 0
        self._messages.clear()
        self._lines.clear()
        self._forget_live()
        self._lines_changed()

    # -- drawing -------------------------------------------------------------------------

    def _flush(self) -> None:
        """Draw the tokens streamed since the last flush: one update for all of them."""
        self._flush_pending = False
        if not self.streamed or (self._reply_written and self.first_token_version is not None):
            return
        start = time.perf_counter()
        if self._live is None:
            self.expect_reply()
        self._set_live(self.streamed.rstrip())  # as the message will read
        self._last_flush = time.perf_counter()
        self._render_cost = self._last_flush - start
        self._lines_changed(len(self._lines))
        if self.first_token_version is None:
            self.first_token_version = self.version

    def _append(
        self,
        messages: Sequence[Mapping[str, Any]],
        streamed: Mapping[BlockKey, list[Strip]] | None = None,
    ) -> None:
        """Add `messages`' lines; `streamed` holds the blocks of the reply streamed into the
        live block (its message takes them)."""
        for message in messages:
            entry = ChatMessage(message)
            self._messages.append(entry)
            if self._width > 0:  # else `on_resize` renders everything once the width is known
                self._lines.extend(entry.lines(self.app.console, self._width, streamed))

    def _forget_live(self) -> None:
        self.streamed, self._reply_written = "", False
        self._live, self._live_lines, self._live_blocks = None, [], {}

    def _set_live(self, markup: str) -> None:
        """Show `markup` in the live block (blocks unchanged since the last time are reused)."""
        self._live = markup
        self._render_live()

    def _render_live(self) -> None:
        width = self._width
        if self._live is None or width <= 0:
            self._live_lines = []
            return
        console = self.app.console
        lines, self._live_blocks = render_markdown(
            console, self._live, width, LIVE_LABEL, cache=self._live_blocks
        )
        self._live_lines = [*muted(lines, LIVE_LABEL.cell_len), Strip.blank(width)]

    def _lines_changed(self, first: int = 0) -> None:
        """Redraw from line `first` on (all lines from there may have changed).

        When the number of lines changed, the scroll range follows (a layout) and the view
        follows the end, unless the learner scrolled up to read; then everything is redrawn."""
        size = Size(self._width, len(self._lines) + len(self._live_lines))
        self.version += 1
        self._drawn = {index: line for index, line in self._drawn.items() if index < first}
        if size != self.virtual_size:
            following = self.scroll_y >= self.max_scroll_y - 1
            self._set_scroll_range(size)
            if following:
                # forced: a scrollbar that appears now is shown by the next layout
                self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
            self.changed_region = self.region
            self._last_end = self.max_scroll_y
            self.refresh()
            return
        view = self.scrollable_content_region
        top = max(0, first - round(self.scroll_y))
        if top >= view.height:
            self.changed_region = Region(view.x, view.bottom, view.width, 0)
            return
        self.changed_region = Region(view.x, view.y + top, view.width, view.height - top)
        self.refresh(Region(0, top, view.width, view.height - top))

    def _set_scroll_range(self, size: Size) -> None:
        """Make `size` the chat's scroll range (its virtual size).

        Textual lays the whole screen out again on every change of a widget's virtual size,
        and every widget of the screen is then measured and resized: two or three times a
        turn, as the chat grows. The chat's own size never depends on its lines (its column
        sets it), so only its scrollbars follow here; the screen is laid out again when the
        scrollbar appears or goes (`_refresh_scrollbars` asks for it), or when the chat's
        height is its content's."""
        height = self.styles.height
        if height is None or height.is_auto:
            self.virtual_size = size
            return
        self.set_reactive(TutorChat.virtual_size, size)
        self._scroll_update(size)  # the scrollbars' range, and the scroll kept inside it

    def on_resize(self) -> None:
        """Lines rendered again for a new width; a view that showed the end still does (the
        window, or the answer box growing below, changed the chat's height)."""
        following = self.scroll_y >= self._last_end - 1
        width = self.scrollable_content_region.width
        if width != self._width:
            self._width = width
            console = self.app.console
            self._lines = [line for entry in self._messages for line in entry.lines(console, width)]
            self._render_live()
            self._lines_changed()
        if following:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        self._last_end = self.max_scroll_y

    def render_lines(self, crop: Region) -> list[Strip]:
        # once per frame, not per line: the style walks the ancestors' styles, and the view's
        # region is worked out from the widget's
        self._line_style = self.rich_style
        self._view = self._view_now()
        self.drawn_version = self.version
        try:
            return super().render_lines(crop)
        finally:
            self._view = None

    def _view_now(self) -> tuple[int, int, int]:
        """(scroll x, scroll y, width) of what the chat shows."""
        scroll_x, scroll_y = self.scroll_offset
        return scroll_x, scroll_y, self.scrollable_content_region.width

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y, width = self._view or self._view_now()
        index = scroll_y + y
        style = self._line_style
        if index < len(self._lines):
            strip = self._lines[index]
        elif index - len(self._lines) < len(self._live_lines):
            strip = self._live_lines[index - len(self._lines)]
        else:
            return Strip.blank(width, style)
        if self.text_selection is not None:
            return self._finish_line(self._selected(strip, index), index, scroll_x, width)
        if self._drawn_for != (scroll_x, width, style):
            self._drawn, self._drawn_for = {}, (scroll_x, width, style)
        line = self._drawn.get(index)
        if line is None:
            line = self._drawn[index] = self._finish_line(strip, index, scroll_x, width)
        return line

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
