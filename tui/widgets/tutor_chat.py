"""The tutor chat: messages, and the tutor's message as it streams in.

Drawing is what a turn costs on screen, so the chat keeps it small: while the tutor thinks a
"Tutor: …" line waits at the bottom; tokens are drawn into it at most once per frame, with a
layout only when the message needs another line; when the message arrives the line becomes it
in place (no remount, no layout when its height is unchanged). The learner's answer and the
live line are mounted together (one layout), and the live line is muted by its text's style, not
a CSS class, so settling it restyles nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

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
"""The streamed text's look until it becomes the message (a text style: no CSS restyling)."""


def live_text(streamed: str) -> Text:
    return LIVE_PREFIX + Text(streamed, LIVE_STYLE)


def message_text(message: Mapping[str, Any]) -> Text:
    """One message: who speaks, then what they say."""
    kind = message.get("kind") or ("answer" if message.get("role") == "student" else "teaching")
    who, style = STYLES.get(kind, STYLES["teaching"])
    if message.get("role") == "student":
        who, style = STYLES["answer"]
    return Text.assemble((f"{who}: ", style), str(message.get("content", "")))


class ChatMessage(Static):
    """One message of the conversation."""

    def __init__(self, message: Mapping[str, Any]) -> None:
        super().__init__(message_text(message), classes=f"msg {message.get('role', 'tutor')}")
        self.message = dict(message)


class TutorChat(VerticalScroll):
    """The conversation, with a live line for the tutor message being streamed."""

    DEFAULT_CSS = """
    TutorChat { height: 1fr; border: round $primary; padding: 0 1; }
    TutorChat > .msg { margin: 0 0 1 0; }
    TutorChat > .student { color: $text; text-style: italic; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Chat"
        self.rendered = 0
        self.streamed = ""
        self.first_token_at: float | None = None
        self._live: Static | None = None
        self._live_lines = 0
        self._flush_pending = False
        self._last_flush = 0.0
        self._first_pending = False

    @property
    def awaiting_reply(self) -> bool:
        """Whether a live line waits for the tutor's reply."""
        return self._live is not None

    def show_messages(self, conversation: list[Mapping[str, Any]]) -> None:
        """Add the messages not shown yet (the conversation only grows).

        The first tutor message after streamed tokens is the streamed one: the live line
        becomes it; other messages go above the live line while it waits."""
        pending = list(conversation[self.rendered :])
        self.rendered = len(conversation)
        if self.streamed:
            self._mark_first_token()  # it may arrive before a frame drew its tokens
            if self._live is not None and pending and pending[0].get("role") == "tutor":
                self._settle_live(pending.pop(0))
            self.end_stream()
        if pending:
            messages = [ChatMessage(m) for m in pending]
            if self._live is not None:
                self.mount_all(messages, before=self._live)
            else:
                self.mount_all(messages)
            self._scroll_to_end()

    def expect_reply(self, conversation: list[Mapping[str, Any]] | None = None) -> None:
        """Show that the tutor is writing (the line its tokens will stream into).

        Messages of `conversation` not shown yet are mounted with the line: one layout."""
        self.end_stream()
        pending = list(conversation[self.rendered :]) if conversation else []
        if conversation:
            self.rendered = len(conversation)
        self._live = Static(live_text("…"), classes="msg tutor")
        self._live_lines = 1
        self.mount_all([*(ChatMessage(m) for m in pending), self._live])
        self._scroll_to_end()

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

    def _flush(self) -> None:
        """Draw the tokens streamed since the last flush: one update for all of them."""
        self._flush_pending = False
        if not self.streamed:
            return
        self._last_flush = time.perf_counter()
        if self._live is None:
            self.expect_reply()
        self._mark_first_token()
        self._draw_live(live_text(self.streamed.rstrip()))  # as the message will read

    def _draw_live(self, text: Text) -> None:
        """Update the live line; a layout (and a scroll) only when its height changes.

        The height is measured the way Textual will lay the line out (its visual)."""
        live = self._live
        live.update(text, layout=False)
        width = live.content_region.width or self.content_region.width
        lines = live.visual.get_height(live.styles, width) if width > 0 else -1
        if lines != self._live_lines:
            self._live_lines = lines
            live.refresh(layout=True)
            self._scroll_to_end()

    def _settle_live(self, message: Mapping[str, Any]) -> None:
        """The live line becomes the finished message (its colour changes, nothing moves)."""
        self._draw_live(message_text(message))
        self._live = None

    def _mark_first_token(self) -> None:
        if self.first_token_at is None and not self._first_pending:
            self._first_pending = True
            self.call_after_refresh(self._first_token_shown)

    def _first_token_shown(self) -> None:
        """When the first token of a message reached the screen (read by bench/tutor.py)."""
        self._first_pending = False
        self.first_token_at = time.perf_counter()

    def _scroll_to_end(self) -> None:
        """Follow the conversation, unless the learner scrolled up to read."""
        if self.scroll_y >= self.max_scroll_y - 1:
            self.scroll_end(animate=False)

    def end_stream(self) -> None:
        """Forget the streamed tokens; a live line still waiting goes away."""
        self.streamed = ""
        if self._live is not None:
            self._live.remove()
            self._live = None

    def clear_all(self) -> None:
        self.rendered = 0
        self.streamed = ""
        self._live = None
        self.remove_children()
