"""Small Markdown scanners: code regions, headings, block ids, frontmatter span.

All positions are character offsets into the text exactly as read (line endings kept), so
edits can splice the original and leave every other byte alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from frontmatter.default_handlers import YAMLHandler

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*\r?$", re.MULTILINE)
BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*\r?$", re.MULTILINE)
_BOUNDARY = YAMLHandler.FM_BOUNDARY  # ^-{3,}\s*$ (multiline), python-frontmatter's own rule
_yaml = YAMLHandler()


def frontmatter_span(text: str) -> tuple[int, int, int] | None:
    """(yaml_start, yaml_end, body_start) when the text opens with a `---` block, else None.

    yaml_start..yaml_end is the YAML between the delimiters; body_start follows the closing
    delimiter line (its line ending included).
    """
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith("---", start):
        return None
    # `^` only matches at a real line start, never at a `pos` after a BOM: match the slice
    first = _BOUNDARY.match(text[start : start + 1024])
    if first is None:
        return None
    line_end = text.find("\n", start)
    if line_end < 0:
        return None
    closing = _BOUNDARY.search(text, line_end + 1)
    if closing is None:
        return None
    body_start = text.find("\n", closing.start())
    body_start = len(text) if body_start < 0 else body_start + 1
    return line_end + 1, closing.start(), body_start


def load_yaml(fm: str) -> object:
    """Parse frontmatter YAML with python-frontmatter's handler (C SafeLoader when present)."""
    return _yaml.load(fm)


def code_mask(text: str) -> str:
    """The text with fenced, indented and inline code replaced by spaces (newlines kept, same
    length)."""
    if "`" not in text and "~~~" not in text and not _may_indent(text):
        return text
    out = list(text)
    for start, end in code_regions(text):
        for i in range(start, end):
            if out[i] not in "\r\n":
                out[i] = " "
    return "".join(out)


def code_regions(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks and inline code spans."""
    regions: list[tuple[int, int]] = []
    pos = 0
    while True:
        opening = FENCE.search(text, pos)
        if opening is None:
            break
        fence = opening.group(1)
        closer = re.compile(
            rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*\r?$", re.MULTILINE
        )
        line_end = text.find("\n", opening.end())
        closing = closer.search(text, line_end + 1) if line_end >= 0 else None
        end = len(text) if closing is None else closing.end()
        regions.append((opening.start(), end))
        pos = end
    if _may_indent(text):
        regions = sorted(regions + indented_regions(text, regions))
    fenced = regions[:]
    for match in INLINE_CODE.finditer(text):
        if "\n\n" in match.group(0) or "\n\r\n" in match.group(0):
            continue
        if not any(s <= match.start() < e for s, e in fenced):
            regions.append((match.start(), match.end()))
    return regions


_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|\r?$)")
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|\r?$)")


def _may_indent(text: str) -> bool:
    return "\n    " in text or "\n\t" in text or text.startswith(("    ", "\t"))


def _indent(line: str) -> int:
    """The line's indentation in columns (a tab reaches the next multiple of 4)."""
    col = 0
    for ch in line:
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            break
    return col


def indented_regions(text: str, fenced: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Character ranges of indented code blocks (CommonMark: lines indented 4 columns after a
    blank line, a heading or the start, not inside a list item or a fenced block)."""
    regions: list[tuple[int, int]] = []
    pos, previous, in_list, start, last = 0, "blank", False, -1, -1
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl + 1
        line = text[pos:end]
        if any(s <= pos < e for s, e in fenced):
            previous, pos = "other", end
            continue
        blank, deep = not line.strip(), _indent(line) >= 4
        if start >= 0 and not blank and not deep:
            regions.append((start, last))
            start = -1
        if start < 0 and deep and not blank and not in_list and previous in ("blank", "heading"):
            start = pos
        if start >= 0 and not blank:
            last = end
        if not blank and not deep:
            in_list = bool(_LIST_ITEM.match(line)) or (in_list and _indent(line) >= 2)
            previous = "heading" if _ATX.match(line) else "other"
        elif blank:
            previous = "blank"
        pos = end
    if start >= 0:
        regions.append((start, last))
    return regions


@dataclass(frozen=True)
class Section:
    """A heading and the text under it, up to the next heading of the same or higher level."""

    level: int
    heading: str
    start: int
    """Offset of the heading line."""
    content_start: int
    """Offset just after the heading line."""
    end: int
    """Offset where the next heading of the same or higher level starts (or the text ends)."""


def sections(text: str, masked: str | None = None) -> list[Section]:
    """Every heading outside code, with its extent."""
    masked = code_mask(text) if masked is None else masked
    # a line is a heading when it is one outside code AND as written: `#`x`` masks to `#   `,
    # which looks like a heading only once the code span is blanked
    found = [
        (m.start(), m.end(), len(m.group(1)), own)
        for m in HEADING.finditer(masked)
        if (own := HEADING.match(text, m.start())) is not None
    ]
    result = []
    for i, (start, end, level, own) in enumerate(found):
        heading = own.group(2).strip()
        stop = len(text)
        for later in found[i + 1 :]:
            if later[2] <= level:
                stop = later[0]
                break
        content_start = end + 1 if end < len(text) and text[end] == "\n" else end
        result.append(Section(level, heading, start, min(content_start, len(text)), stop))
    return result


def block_ids(text: str, masked: str | None = None) -> list[str]:
    """Block ids (`^id` at a line end) outside code, in order."""
    masked = code_mask(text) if masked is None else masked
    return [m.group(1) for m in BLOCK_ID.finditer(masked)]


def newline_of(text: str) -> str:
    """The line ending the text uses ("\\r\\n" when its first line ends so, else "\\n")."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
