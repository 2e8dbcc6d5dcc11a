"""Free text (a model's, or a merged note's) placed under a note's heading without letting it
restructure the note.

A line of such text that Markdown would read as structure (an ATX heading, a setext
underline or thematic break, `---`, a code fence that could swallow the rest of the note)
gets one more backslash before it: `## Fuente` is written `\\## Fuente`, which Obsidian shows
as the text `## Fuente` and no parser takes for a heading. The escape is injective (a line
that already starts with backslashes before such a token gets one more), so `unguard`
gives back exactly what `guard` was given: a note noema wrote reads back to what it wrote.
"""

from __future__ import annotations

import re
import unicodedata

_TOKEN = r"(?=#{1,6}(?:[ \t]|$)|(?:[-*_][ \t]*){3,}$|=+[ \t]*$|-+[ \t]*$|`{3,}|~{3,})"
_GUARD = re.compile(r"^( {0,3})(\\*)" + _TOKEN, re.MULTILINE)
_UNGUARD = re.compile(r"^( {0,3})\\(\\*)" + _TOKEN, re.MULTILINE)
_BREAKS = re.compile(r"\r\n|[\r\x85\u2028\u2029\x0b\x0c]")
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_text(text: str) -> str:
    """The text as a note can hold it: line breaks as `\\n`, no control characters (tabs
    kept), no lone surrogates or bidi overrides, outer blank space stripped."""
    text = _BREAKS.sub("\n", text)
    kept = (
        ch
        for ch in text
        if ch in "\n\t" or (unicodedata.category(ch) not in ("Cc", "Cs") and ch not in _BIDI)
    )
    return "".join(kept).strip()


def guard(text: str) -> str:
    """`clean_text`, with every structural line escaped (see the module docstring)."""
    return _GUARD.sub(lambda m: m.group(1) + "\\" + m.group(2), clean_text(text))


def unguard(text: str) -> str:
    """The inverse of `guard` on the text it wrote."""
    return _UNGUARD.sub(lambda m: m.group(1) + m.group(2), text)
