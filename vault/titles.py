"""Titles that reach a note: one cleaning for the file name, the heading and the link text.

A title a model (or a user) wrote can hold `]]`, `|`, `#`, path separators, newlines, control
and bidi characters, or run to hundreds of characters. `note_title` turns it into the one
text noema uses as the file name (plus `.md`), the `# H1` / `## section` heading and the
shown text of links, so that the three never disagree and none can inject structure.
"""

from __future__ import annotations

import re
import unicodedata

_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]`\x00-\x1f\x7f]')
"""Not allowed in file names on some OS, or meaningful inside `[[...]]` links (a backtick
would pair with another into a code span that hides the link)."""
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}
MAX_NAME = 120
MAX_NAME_BYTES = 200
"""File systems limit a name to 255 bytes: room is left for ` 99` and `.md`."""
_INVISIBLE = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}
"""Control, format (bidi overrides, zero-width), private and unassigned characters."""
_JOINERS = {"\u200c", "\u200d"}
"""Zero-width (non-)joiners: part of emoji sequences and of several scripts' spelling."""


def _visible(ch: str) -> str:
    return ch if ch in _JOINERS or unicodedata.category(ch) not in _INVISIBLE else " "


def _shorten(name: str) -> str:
    """At most MAX_NAME characters and MAX_NAME_BYTES bytes, cut between words when the
    text has a space in its second half (a single long word is cut where it must be)."""
    if len(name) <= MAX_NAME and len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    cut = name[:MAX_NAME]
    while len(cut.encode("utf-8")) > MAX_NAME_BYTES:
        cut = cut[:-1]
    if not name[len(cut) : len(cut) + 1].isspace():
        space = cut.rfind(" ")
        if space >= len(cut) // 2:
            cut = cut[:space]
    return cut.rstrip(" .-,;")


def note_title(title: str) -> str:
    """The cleaned title: safe as a file name (without `.md`), as heading text and as link
    text. Idempotent: `note_title(note_title(x)) == note_title(x)`."""
    name = unicodedata.normalize("NFC", title)
    name = "".join(_visible(ch) for ch in name)
    name = _UNSAFE.sub(" ", name)
    while "%%" in name:  # an Obsidian comment marker would hide the rest of the line
        name = name.replace("%%", "%")
    name = " ".join(name.split()).strip(" .")
    name = _shorten(name).strip(" .")
    if not name or name.lower() in _RESERVED:
        name = f"Untitled {name}".strip()
    return name


def safe_filename(title: str) -> str:
    """A file name (without `.md`) safe on every OS and in Obsidian links: `note_title`."""
    return note_title(title)
