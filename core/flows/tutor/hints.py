"""Splits the executor's streamed text into the message (shown as it comes) and its hints.

The executor writes its message, then lines starting with `Hint:` (or `Pista:`). Tokens are
passed on as they arrive, except the start of a line is held back until it is clear whether the
line is a hint, so hints never flash in the chat.
"""

from __future__ import annotations

import re

MARKERS = ("hint:", "pista:", "hints:", "pistas:")
_HOLD = max(len(m) for m in MARKERS)
_BULLET = re.compile(r"^[\s*\-•]*")


def _lead(line: str) -> str:
    """A line without leading spaces and bullet marks, lower-cased."""
    return _BULLET.sub("", line).lower()


class HintSplitter:
    """Feed streamed pieces; get back the visible part of each; `finish()` gives the result."""

    def __init__(self) -> None:
        self._message: list[str] = []
        self._hints: list[str] = []
        self._line = ""
        self._decided: bool | None = None
        """None: the current line's kind is unknown yet; True: hint line; False: message line."""

    def feed(self, piece: str) -> str:
        """The text of `piece` that can be shown now."""
        shown = []
        for char in piece:
            shown.append(self._push(char))
        return "".join(shown)

    def _push(self, char: str) -> str:
        if char == "\n":
            line, decided = self._line, self._decided
            self._end_line()
            if decided is None and not self._maybe_hint(line):
                self._message.append(line + "\n")
                return line + "\n"
            if decided is False:
                self._message.append("\n")
                return "\n"
            return ""
        self._line += char
        if self._decided is False:
            self._message.append(char)
            return char
        if self._decided is None:
            lead = _lead(self._line)
            if any(lead.startswith(m) for m in MARKERS):
                self._decided = True
            elif len(lead) >= _HOLD or not any(m.startswith(lead) for m in MARKERS):
                self._decided = False
                self._message.append(self._line)
                return self._line
        return ""

    def _maybe_hint(self, line: str) -> bool:
        lead = _lead(line)
        if any(lead.startswith(m) for m in MARKERS):
            self._add_hint(line)
            return True
        return False

    def _end_line(self) -> None:
        if self._decided:
            self._add_hint(self._line)
        self._line, self._decided = "", None

    def _add_hint(self, line: str) -> None:
        text = _BULLET.sub("", line)
        text = text.split(":", 1)[1].strip() if ":" in text else text.strip()
        if any(char.isalpha() for char in text):  # "1.1.1.2." or "(I) - (II)" hints nothing
            self._hints.append(text)

    def finish(self) -> tuple[str, list[str]]:
        """(the message, the hints) once the stream has ended."""
        tail = self._line
        if self._decided is None and tail and not self._maybe_hint(tail):
            self._message.append(tail)
        elif self._decided:
            self._add_hint(tail)
        self._line, self._decided = "", None
        return "".join(self._message).strip(), self._hints[:3]

    def pending(self) -> str:
        """Text held back (an undecided line start) that `finish()` may still show."""
        return self._line if self._decided is None else ""


ROLE_LABEL = re.compile(r"^\s*(?:TUTOR|STUDENT|USER|ASSISTANT)\s*:\s*", re.IGNORECASE)
MIN_LETTERS = 4


def readable(message: str) -> str:
    """The message without a speaker label the model copied from the conversation block
    (`TUTOR: ...`), or empty when fewer than `MIN_LETTERS` letters are left: the bundled model,
    held to prose, still wrote turns of digits (`TUTOR: 1000000100000200000...`), which are no
    message and are asked again like an empty one."""
    text = ROLE_LABEL.sub("", message, count=1)
    return text if sum(char.isalpha() for char in text) >= MIN_LETTERS else ""
