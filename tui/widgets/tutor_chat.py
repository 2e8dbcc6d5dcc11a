"""The tutor chat: messages, the tutor's message as it streams in, the hints of a question."""

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
    TutorChat > .live { color: $text-muted; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Chat"
        self.rendered = 0
        self.streamed = ""
        self.first_token_at: float | None = None
        self._live: Static | None = None

    def show_messages(self, conversation: list[Mapping[str, Any]]) -> None:
        """Add the messages not shown yet (the conversation only grows).

        The streamed line becomes the tutor's message when it arrives (no remount)."""
        pending = list(conversation[self.rendered :])
        self.rendered = len(conversation)
        live = self._live
        if live is not None and pending and pending[0].get("role") == "tutor":
            live.update(message_text(pending[0]))
            live.set_classes("msg tutor")
            self._live = None
            pending = pending[1:]
        self.end_stream()
        if pending:
            self.mount_all([ChatMessage(m) for m in pending])
            self.scroll_end(animate=False)

    def stream(self, token: str) -> None:
        """Append a token to the tutor message being written."""
        if not self.streamed:
            self.call_after_refresh(self._first_token_shown)
        self.streamed += token
        live = self.live()
        live.update(Text.assemble(("Tutor: ", "bold cyan"), self.streamed))
        self.scroll_end(animate=False)

    def _first_token_shown(self) -> None:
        """When the first token of a message reached the screen (read by bench/tutor.py)."""
        self.first_token_at = time.perf_counter()

    def live(self) -> Static:
        """The line the tutor's message streams into (it becomes that message when done)."""
        if self._live is None:
            self._live = Static("", classes="live")
            self.mount(self._live)
        return self._live

    def end_stream(self) -> None:
        self.streamed = ""
        if self._live is not None:
            self._live.remove()
            self._live = None

    def clear_all(self) -> None:
        self.rendered = 0
        self.streamed = ""
        self._live = None
        self.remove_children()
