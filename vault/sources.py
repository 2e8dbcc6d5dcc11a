"""Quotes of a source note: the shapes Kindle, Readwise and podcast exports write.

Quotes are the blockquote paragraphs and top-level list items under a "Highlights" or
"Quotes" heading (Spanish "Citas", "Destacados", "Subrayados" too). A quote's id is its block
id (`^id`, at the end of its last line or alone on the line after it) when it has one, else
a stable id derived from its text. A podcast quote's leading `[hh:mm:ss]` is its location,
not part of its text.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, replace

from vault.note import Note

QUOTE_HEADINGS = ("highlights", "quotes", "citas", "destacados", "subrayados", "notas destacadas")
LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])[ \t]+(.*)$")
TRAILING_ID = re.compile(r"[ \t]+\^([A-Za-z0-9-]+)[ \t]*$|^\^([A-Za-z0-9-]+)[ \t]*$")
READWISE_LOCATION = re.compile(
    r"\s*\(\[(?:Location|Page|Posición|Página)[^\]]*\]\([^)]*\)\)\s*$", re.I
)
KINDLE_META = re.compile(r"^[—–-]\s*(?:location|page|posición|página)\b", re.I)
_STAMP = r"\d{1,2}(?::\d{2}){1,2}"
TIMESTAMP = re.compile(
    rf"^(?:\[({_STAMP})\](?:\([^()\s]*\))?|\(({_STAMP})\))[ \t]*(?:[-–—:|][ \t]*)?"
)
"""A podcast export's time stamp opening a quote: `[01:02:03]`, `[12:34](https://…)`, `(12:34)`."""
BLOCK_ID_LINE = re.compile(r"^\^([A-Za-z0-9-]+)[ \t]*$")


@dataclass(frozen=True)
class SourceQuote:
    """One quote of a source note, with where it sits in the text."""

    id: str
    text: str
    block_id: str | None
    """The block id written in the note, if any."""
    line_end: int
    """Offset of the end of the quote's last line (before its line ending): where a block
    id is appended."""
    location: str | None = None
    """Where the quote sits in its source, when the source says so (a podcast's `01:02:03`)."""


def stable_quote_id(text: str) -> str:
    """A block-id-safe id derived from the quote's normalized text."""
    norm = " ".join(unicodedata.normalize("NFC", text).lower().split())
    return "q-" + hashlib.blake2b(norm.encode("utf-8"), digest_size=5).hexdigest()


def quote_sections(note: Note) -> list[tuple[int, int]]:
    """(start, end) offsets of every Highlights/Quotes section's content."""
    return [(s.content_start, s.end) for s in note.sections if s.heading.lower() in QUOTE_HEADINGS]


def _lines(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """(line_start, line_end_without_newline, content) of each line in text[start:end]."""
    out = []
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        stop = end if nl < 0 else nl
        content_end = stop - 1 if stop > pos and text[stop - 1] == "\r" else stop
        out.append((pos, content_end, text[pos:content_end]))
        pos = stop + 1 if nl >= 0 else end
    return out


def _finish(raw: list[str], line_end: int, seen: dict[str, int]) -> SourceQuote | None:
    last = raw[-1]
    block_id = None
    m = TRAILING_ID.search(last)
    if m:
        block_id = m.group(1) or m.group(2)
        raw = [*raw[:-1], last[: m.start()]]
    kept = [line for line in raw if not KINDLE_META.match(line.strip())]
    text = " ".join(" ".join(kept).split())
    text = READWISE_LOCATION.sub("", text).strip()
    location = None
    stamp = TIMESTAMP.match(text)
    if stamp:
        location, text = stamp.group(1) or stamp.group(2), text[stamp.end() :].strip()
    if not text:
        return None
    quote_id = block_id or stable_quote_id(text)
    count = seen.get(quote_id, 0)
    seen[quote_id] = count + 1
    if count and not block_id:
        quote_id = f"{quote_id}-{count + 1}"
    return SourceQuote(quote_id, text, block_id, line_end, location)


class _Collector:
    """Groups the lines of one quotes section into quotes."""

    def __init__(self, quotes: list[SourceQuote], seen: dict[str, int]) -> None:
        self.quotes, self.seen = quotes, seen
        self.current: list[str] = []
        self.end = 0
        self.mode = ""
        self.last: int | None = None
        """Index of the quote just finished while only blank lines followed it."""

    def flush(self, mode: str = "") -> None:
        if self.current:
            quote = _finish(self.current, self.end, self.seen)
            if quote is not None:
                self.quotes.append(quote)
                self.last = len(self.quotes) - 1
        self.current = []
        self.mode = mode

    def block_id(self, block_id: str, line_end: int) -> None:
        """`^id` alone on a line: the id of the quote right above it (after its last line,
        or after one blank line, as Obsidian writes ids of quotes and lists)."""
        if self.current:
            self.add("^" + block_id, line_end)
            self.flush()
            return
        if self.last is not None and self.quotes[self.last].block_id is None:
            quote = self.quotes[self.last]
            self.quotes[self.last] = replace(quote, id=block_id, block_id=block_id)
        self.last = None

    def add(self, text: str, line_end: int) -> None:
        self.current.append(text)
        self.end = line_end

    def line(self, line: str, line_end: int) -> None:
        lone_id = BLOCK_ID_LINE.match(line.strip())
        if lone_id and not line[:1].isspace():
            self.block_id(lone_id.group(1), line_end)
            return
        if line.strip():
            self.last = None
        item = LIST_ITEM.match(line)
        indented = line[:1] in " \t" and bool(line.strip())
        if line.startswith(">"):
            stripped = line[1:].strip()
            if self.mode != ">" or not stripped:
                self.flush(">")  # an empty ">" line separates two quoted paragraphs
            if stripped and not stripped.startswith(">"):
                self.add(stripped, line_end)
        elif item:
            self.flush("-")
            self.add(item.group(1), line_end)
        elif self.mode == "-" and indented and not LIST_ITEM.match(line.strip()):
            self.add(line.strip(), line_end)
        elif self.mode.startswith("-") and indented:
            self.mode = "-nested"  # a nested item is the reader's note, not the quote
        else:
            self.flush()


def parse_quotes(note: Note) -> list[SourceQuote]:
    """Every quote of the note's Highlights/Quotes sections, in order."""
    quotes: list[SourceQuote] = []
    seen: dict[str, int] = {}
    masked, offset = note.masked_body, note.body_start
    for start, end in quote_sections(note):
        collector = _Collector(quotes, seen)
        for line_start, line_end, line in _lines(note.text, start, end):
            if line.strip() and not masked[line_start - offset : line_end - offset].strip():
                collector.flush()  # inside code: not a quote
                continue
            collector.line(line, line_end)
        collector.flush()
    return quotes


def block_id_inserts(quotes: list[SourceQuote], ids: set[str] | None = None) -> dict[int, str]:
    """Offsets -> ` ^id` to give quotes without a written block id their id (for
    VaultWriter.insert_at), so `[[Source#^id]]` links resolve in Obsidian. `ids` limits it
    to some quotes."""
    return {
        q.line_end: f" ^{q.id}"
        for q in quotes
        if q.block_id is None and (ids is None or q.id in ids)
    }
