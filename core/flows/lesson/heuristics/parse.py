"""Splitting a lesson's markdown into sections and blocks, with notation set apart.

Every heuristic reads the same parse, made once per lesson: the `#` title (and what stands
before it), sections by `##` heading, and inside each section its blocks: paragraph, list,
table, quote, heading (`###`...), rule (`---`), code (fenced) and formula (display math,
`$$...$$` or `\\[...\\]`). Code fences and display formulas are honoured, so a `## ` line
inside code is not a heading, and an unclosed fence or formula is marked as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from core.flows.lesson.heuristics.notation import INLINE_CODE, own_voice_of_prose, prose

BlockKind = Literal["paragraph", "list", "code", "table", "quote", "heading", "formula", "rule"]

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
SECTION_HEADING = re.compile(r"^##\s+(.*\S)\s*$")
ANY_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])(?:\s+|$)")
RULE = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
DISPLAY_OPEN = re.compile(r"^\s*(?:\$\$|\\\[)")
DISPLAY_CLOSE = re.compile(r"(?:\$\$|\\\])\s*[.,;]?\s*$")
PROSE_KINDS = frozenset({"paragraph", "list", "quote"})

__all__ = [
    "INLINE_CODE",
    "LIST_ITEM",
    "Block",
    "ParsedLesson",
    "Section",
    "parse_lesson",
    "prose_of",
]


@dataclass
class Block:
    """A run of lines of one kind."""

    kind: BlockKind
    lines: list[str]
    line_no: int
    """0-based line of the block's first line in the lesson body."""
    closed: bool = True
    """False for a code fence or a display formula that never closes."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def last_line_no(self) -> int:
        """0-based line of the block's last line."""
        return self.line_no + len(self.lines) - 1

    @cached_property
    def prose(self) -> str:
        """The block's natural-language text, notation removed (see `notation.prose`)."""
        return prose(self.text)

    @cached_property
    def voice(self) -> str:
        """The writer's own words in the block (see `notation.own_voice`)."""
        return own_voice_of_prose(self.prose)


@dataclass
class Section:
    """One `##` section (or the preamble before the first heading, with an empty title)."""

    title: str
    line_no: int
    blocks: list[Block] = field(default_factory=list)

    def prose(self) -> str:
        """The section's natural-language text: no code, formulas or other notation."""
        return "\n\n".join(b.prose for b in self.blocks if b.kind in PROSE_KINDS)


@dataclass
class ParsedLesson:
    """A lesson body split into its title, sections and blocks."""

    title: str
    sections: list[Section]
    lines: list[str]
    title_line: int = -1
    """0-based line of the `# ` title (-1: the lesson has none)."""

    def blocks(self) -> list[Block]:
        return [b for s in self.sections for b in s.blocks]

    def body_sections(self) -> list[Section]:
        """The `##` sections (the preamble is not one unless there is no heading at all)."""
        named = [s for s in self.sections if s.title]
        return named or [s for s in self.sections if s.blocks]

    def before_title(self) -> list[Block]:
        """Blocks written above the `# ` title (a lesson starts with its title)."""
        if self.title_line < 0 or not self.sections:
            return []
        return [b for b in self.sections[0].blocks if b.line_no < self.title_line]

    def last_block(self) -> tuple[Section, Block] | None:
        """The lesson's last block and its section (None for a lesson without blocks)."""
        for section in reversed(self.sections):
            if section.blocks:
                return section, section.blocks[-1]
        return None


def prose_of(block: Block) -> str:
    """A block's text without notation (kept for callers of the first version)."""
    return block.prose


def _kind_of(line: str) -> BlockKind:
    stripped = line.lstrip()
    if ANY_HEADING.match(line):
        return "heading"
    if RULE.match(line):
        return "rule"
    if LIST_ITEM.match(line):
        return "list"
    if stripped.startswith("|"):
        return "table"
    if stripped.startswith(">"):
        return "quote"
    return "paragraph"


def _fence_end(lines: list[str], i: int) -> int | None:
    """Index of the line closing the fence opened at `i` (same character, at least as long)."""
    opening = FENCE.match(lines[i]).group(1)  # type: ignore[union-attr]
    closing = re.compile(rf"^\s{{0,3}}{re.escape(opening[0])}{{{len(opening)},}}\s*$")
    return next((j for j in range(i + 1, len(lines)) if closing.match(lines[j])), None)


def _formula_end(lines: list[str], i: int) -> int | None:
    """Index of the line closing the display formula opened at `i` (a heading stops it)."""
    first = lines[i].strip()
    rest = first[2:]
    if DISPLAY_CLOSE.search(rest) and rest.strip(" .,;") not in ("", "$$", "\\]"):
        return i  # `$$ a = b $$` on one line
    for j in range(i + 1, len(lines)):
        if ANY_HEADING.match(lines[j]):
            return None
        if DISPLAY_CLOSE.search(lines[j]):
            return j
    return None


def _fenced(lines: list[str], i: int, start: int) -> tuple[Block, int] | None:
    """A code block or display formula starting at line `i`, and the index after it."""
    if FENCE.match(lines[i]):
        end = _fence_end(lines, i)
        kind: BlockKind = "code"
    elif DISPLAY_OPEN.match(lines[i]):
        end = _formula_end(lines, i)
        kind = "formula"
    else:
        return None
    stop = len(lines) if end is None else end + 1
    if end is None and kind == "formula":  # an open formula runs to its section's last text
        stop = max(j for j in range(i, stop) if lines[j].strip()) + 1
    return Block(kind, lines[i:stop], start + i, closed=end is not None), stop


def _continues(current: Block | None, kind: BlockKind, line: str) -> bool:
    if current is None or kind in ("heading", "rule"):
        return False
    if current.kind == kind:
        return True
    # an indented line, or a lazy continuation line, belongs to the list item above
    return current.kind == "list" and (line.startswith((" ", "\t")) or kind == "paragraph")


def _split_blocks(lines: list[str], start: int) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    i = 0
    while i < len(lines):
        if fenced := _fenced(lines, i, start):
            block, i = fenced
            blocks.append(block)
            current = None
            continue
        line = lines[i]
        i += 1
        if not line.strip():
            current = None
            continue
        kind = _kind_of(line)
        if _continues(current, kind, line):
            current.lines.append(line)  # type: ignore[union-attr]
        else:
            current = Block(kind, [line], start + i - 1)
            blocks.append(current)
    return blocks


def _section_starts(lines: list[str]) -> list[tuple[int, str]]:
    starts: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            end = _fence_end(lines, i)
            i = len(lines) if end is None else end + 1
            continue
        if match := SECTION_HEADING.match(lines[i]):
            starts.append((i, match.group(1)))
        i += 1
    return starts


def parse_lesson(body: str) -> ParsedLesson:
    """Parse a lesson body (markdown without frontmatter)."""
    lines = body.splitlines()
    title_line = next((n for n, ln in enumerate(lines) if ln.startswith("# ")), -1)
    title = lines[title_line][2:].strip() if title_line >= 0 else ""
    bounds = [(0, "")] + _section_starts(lines)
    sections: list[Section] = []
    for n, (line_no, name) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(lines)
        first = line_no + 1 if name else 0
        blocks = _split_blocks(lines[first:end], first)
        if not name:
            blocks = [b for b in blocks if b.line_no != title_line]
        sections.append(Section(name, line_no, blocks))
    return ParsedLesson(title, sections, lines, title_line)
