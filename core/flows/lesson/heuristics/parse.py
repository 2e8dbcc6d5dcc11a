"""Splitting a lesson's markdown into sections and blocks, with code set apart.

Every heuristic reads the same parse, made once per lesson: sections by `##` heading (the `#`
title is not a section), and inside each section the blocks (paragraph, list, code, table,
quote). Code fences are honoured so that a `## ` line inside code is not a heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

BlockKind = Literal["paragraph", "list", "code", "table", "quote", "heading"]

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
SECTION_HEADING = re.compile(r"^##\s+(.*\S)\s*$")
ANY_HEADING = re.compile(r"^#{1,6}\s")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])(?:\s+|$)")
INLINE_CODE = re.compile(r"`+[^`\n]*`+")
URL = re.compile(r"\]\([^)\s]*\)|https?://\S+")
WIKILINK = re.compile(r"\[\[([^\]|#]*)(?:[#|][^\]]*)?\]\]")


@dataclass
class Block:
    """A run of lines of one kind."""

    kind: BlockKind
    lines: list[str]
    line_no: int
    """0-based line of the block's first line in the lesson body."""
    closed: bool = True
    """False for a code fence that never closes."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @cached_property
    def prose(self) -> str:
        """The block's natural-language text (see `prose_of`), computed once."""
        text = INLINE_CODE.sub(" ", self.text)
        text = URL.sub("]", text)
        return WIKILINK.sub(r"\1", text)


@dataclass
class Section:
    """One `##` section (or the preamble before the first heading, with an empty title)."""

    title: str
    line_no: int
    blocks: list[Block] = field(default_factory=list)

    def prose(self) -> str:
        """The section's natural-language text: no code, no inline code, no link targets."""
        return "\n\n".join(prose_of(b) for b in self.blocks if b.kind not in ("code", "heading"))


@dataclass
class ParsedLesson:
    """A lesson body split into its title, sections and blocks."""

    title: str
    sections: list[Section]
    lines: list[str]

    def blocks(self) -> list[Block]:
        return [b for s in self.sections for b in s.blocks]

    def body_sections(self) -> list[Section]:
        """The `##` sections (the preamble is not one unless there is no heading at all)."""
        named = [s for s in self.sections if s.title]
        return named or [s for s in self.sections if s.blocks]


def prose_of(block: Block) -> str:
    """A block's text without inline code, link targets and URLs (kept: link labels)."""
    return block.prose


def _kind_of(line: str) -> BlockKind:
    stripped = line.lstrip()
    if ANY_HEADING.match(line):
        return "heading"
    if LIST_ITEM.match(line):
        return "list"
    if stripped.startswith("|"):
        return "table"
    if stripped.startswith(">"):
        return "quote"
    return "paragraph"


def _split_blocks(lines: list[str], start: int) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), None)
            stop = len(lines) if end is None else end + 1
            blocks.append(Block("code", lines[i:stop], start + i, closed=end is not None))
            current, i = None, stop
            continue
        if not line.strip():
            current, i = None, i + 1
            continue
        kind = _kind_of(line)
        continues = current is not None and (
            current.kind == kind or (current.kind == "list" and line.startswith((" ", "\t")))
        )
        if continues and kind != "heading":
            current.lines.append(line)
        else:
            current = Block(kind, [line], start + i)
            blocks.append(current)
        i += 1
    return blocks


def _section_starts(lines: list[str]) -> list[tuple[int, str]]:
    starts: list[tuple[int, str]] = []
    in_code = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code and (match := SECTION_HEADING.match(line)):
            starts.append((i, match.group(1)))
    return starts


def parse_lesson(body: str) -> ParsedLesson:
    """Parse a lesson body (markdown without frontmatter)."""
    lines = body.splitlines()
    title = next((ln[2:].strip() for ln in lines if ln.startswith("# ")), "")
    starts = _section_starts(lines)
    bounds = [(0, "")] + starts
    sections: list[Section] = []
    for n, (line_no, name) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(lines)
        first = line_no + 1 if name else 0
        chunk = [ln for ln in lines[first:end]]
        blocks = _split_blocks(chunk, first)
        if not name:
            blocks = [b for b in blocks if not (b.kind == "heading" and b.text.startswith("# "))]
        sections.append(Section(name, line_no, blocks))
    return ParsedLesson(title, sections, lines)
