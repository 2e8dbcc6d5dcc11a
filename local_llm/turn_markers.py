"""End a streamed free-text answer at the first chat-template turn marker.

Why: a small local model served with a chat template that does not match its own (e.g. Gemma 3
270M behind llama.cpp's OpenAI-compatible server) does not stop at the end of its turn. It runs
on and writes the template's markers itself, e.g. `<|im_start|>user\\n<|im_end|>\\n...` repeated
until `max_tokens`. A free-text answer never legitimately contains these markers, so the text
before the first one is the whole answer and the rest is noise to drop (and not to wait for).

Markers can arrive split across streamed pieces (`"<|im_"` then `"start|>"`), so the cutter
holds back the tail of the text that could still become a marker, and only that: text that
cannot start one (a piece without `<`) is released at once.
"""

from __future__ import annotations

from collections.abc import Sequence

TURN_MARKERS: tuple[str, ...] = (
    "<|im_start|>",  # ChatML (Qwen, SmolLM, many fine-tunes)
    "<|im_end|>",
    "<start_of_turn>",  # Gemma
    "<end_of_turn>",
    "<|eot_id|>",  # Llama 3
    "<|start_header_id|>",
    "<|endoftext|>",  # GPT-2 style end of text (Qwen, Phi)
    "<|end|>",  # Phi-3
    "</s>",  # Llama 2 / Mistral end of sequence
)
"""Chat-template markers that end a free-text answer wherever they appear in it.

Each starts with `<`, which is what lets text without one be released at once."""


class TurnMarkerCutter:
    """Feed streamed pieces in order; get back the text that is safe to show now.

    After a marker is seen, `marker` names it and everything from it on is dropped:
    the caller should stop reading the stream. When the stream ends without a marker,
    `finish()` releases the text still held back.
    """

    def __init__(self, markers: Sequence[str] = TURN_MARKERS):
        if not markers or not all(m.startswith("<") for m in markers):
            raise ValueError("turn markers must be non-empty and each start with '<'")
        self._markers = tuple(markers)
        self._held = ""
        self.marker: str | None = None
        """The marker the answer was cut at, or None while there was none."""

    def feed(self, piece: str) -> str:
        """The text that can be released after `piece` ('' once a marker was seen)."""
        if self.marker is not None:
            return ""
        text = self._held + piece
        cut = self._first_marker(text)
        if cut is not None:
            self._held = ""
            return text[:cut]
        hold_from = self._possible_marker_start(text)
        self._held = text[hold_from:]
        return text[:hold_from]

    def finish(self) -> str:
        """The held-back text, released because the stream ended without a marker."""
        held, self._held = self._held, ""
        return held

    @property
    def note(self) -> str:
        """A line for the call's trace: where the answer was cut, or '' when it was not."""
        return f"cut at turn marker {self.marker!r}" if self.marker else ""

    def _first_marker(self, text: str) -> int | None:
        """The index of the earliest complete marker in `text` (and remember which), or None."""
        found = [(text.find(m), m) for m in self._markers if m in text]
        if not found:
            return None
        index, self.marker = min(found)
        return index

    def _possible_marker_start(self, text: str) -> int:
        """Where the tail that could still grow into a marker starts (len(text) if none)."""
        start = text.find("<", max(0, len(text) - max(map(len, self._markers)) + 1))
        while start != -1:
            tail = text[start:]
            if any(m.startswith(tail) for m in self._markers):
                return start
            start = text.find("<", start + 1)
        return len(text)
