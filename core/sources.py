"""Source notes of the vault as core.domain Source and Quote objects."""

from __future__ import annotations

from datetime import date, datetime, time
from pathlib import Path

from core.domain import Quote, Source
from vault.note import Note, read_note
from vault.sources import SourceQuote, parse_quotes


def _processed(value: object) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime.combine(value, time())
    try:
        return datetime.fromisoformat(str(value).strip())
    except ValueError:
        return None


def _text(value: object) -> str | None:
    return str(value).strip() if value not in (None, "") else None


def source_from_note(note: Note) -> Source:
    """The Source a source note describes (title from frontmatter, else the file name)."""
    fm = note.frontmatter
    return Source(
        path=Path(note.path),
        title=_text(fm.get("title")) or note.title,
        author=_text(fm.get("author")),
        category=_text(fm.get("category")),
        processed_date=_processed(fm.get("processed_date")),
    )


def quotes_from_note(note: Note) -> list[Quote]:
    """The note's quotes (Highlights / Quotes sections), ids as in vault.sources."""
    return [to_quote(q, note.path) for q in parse_quotes(note)]


def to_quote(quote: SourceQuote, path: str) -> Quote:
    return Quote(id=quote.id, text=quote.text, source=Path(path))


class SourceNeedsFixing(ValueError):
    """The source note is malformed or empty: it is not extracted until it is fixed."""


def read_source(root: Path, rel: str, max_bytes: int = 2_000_000) -> tuple[Source, list[Quote]]:
    """Read a source note and its quotes from the vault (NoteUnreadable when it cannot be
    read, SourceNeedsFixing when its frontmatter is malformed or it is empty)."""
    note = read_note(Path(root), rel, max_bytes)
    if note.warnings:
        raise SourceNeedsFixing(f"{note.warnings[0]}; fix the note to extract it")
    return source_from_note(note), quotes_from_note(note)


def is_processed(note: Note) -> bool:
    return source_from_note(note).processed_date is not None
