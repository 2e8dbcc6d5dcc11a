"""Turn one parsed note into the rows the index stores (no database access here)."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from vault.links import note_name
from vault.note import Note
from vault.resolve import name_key
from vault.sources import parse_quotes

SOURCE_SECTIONS = ("fuente", "fuentes", "source", "sources")
ENGLISH_HEADINGS = ("concept", "analysis", "connections")
SPANISH_HEADINGS = ("concepto", "análisis", "conexiones")


NoteRow = tuple[str, str, int, int, str, str, str, str]
"""notes: path, hash, mtime_ns, size, kind, title, frontmatter_json, indexed_at."""
LinkRow = tuple[str, str, str, str, str | None, str, int, int, str | None]
"""links: source_path, target, target_name, subpath, alias, kind, embed, in_frontmatter,
resolved_path."""
ConceptRow = tuple[str, str, str, str, str, str, str | None, str]
"""concepts: entity_id, path, title, aliases_json, short_summary, summary, language, hash."""
FtsRow = tuple[str, str, str, str]
"""concepts_fts: title, aliases, short_summary, summary."""
RelationRow = tuple[str, str, str]
"""concept_relations: entity_id, type, target."""
SourceRow = tuple[str, str, str | None, str | None, str | None]
"""sources: path, title, author, category, processed_date."""
QuoteRow = tuple[str, str, int, str, str | None, str | None]
"""quotes: source_path, quote_id, position, text, block_id, location."""
QuoteConceptRow = tuple[str, str, str]
"""quote_concepts: entity_id, source name, block id."""


@dataclass
class NoteRows:
    """Everything the index keeps about one note: the parameters of its rows' INSERTs."""

    note: NoteRow
    links: list[LinkRow] = field(default_factory=list)
    concept: ConceptRow | None = None
    fts: FtsRow | None = None
    relations: list[RelationRow] = field(default_factory=list)
    source: SourceRow | None = None
    quotes: list[QuoteRow] = field(default_factory=list)
    quote_concepts: list[QuoteConceptRow] = field(default_factory=list)


def _json_default(value: object) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()


def embedding_text(title: str, aliases: list[str], short_summary: str, summary: str) -> str:
    """The text a concept's vector embeds."""
    parts = [title]
    if aliases:
        parts.append("; ".join(aliases))
    parts.extend(p for p in (short_summary, summary) if p)
    return "\n".join(parts)


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def concept_language(note: Note) -> str | None:
    """`en` or `es` from the template's headings, else a `language` frontmatter field."""
    headings = {s.heading.lower() for s in note.sections}
    if headings & set(ENGLISH_HEADINGS):
        return "en"
    if headings & set(SPANISH_HEADINGS):
        return "es"
    value = note.frontmatter.get("language") or note.frontmatter.get("lang")
    return str(value) if value else None


def concept_id(note: Note) -> str:
    """The note's entity_id, or a stable id from its path for concept notes without one."""
    value = note.frontmatter.get("entity_id")
    if value:
        return str(value).strip()
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "noema:" + note.path))


def relations_of(entity_id: str, frontmatter: Mapping[str, object]) -> list[RelationRow]:
    raw = frontmatter.get("concept_relations")
    if not isinstance(raw, dict):
        return []
    rows = []
    for rel_type, targets in raw.items():
        if isinstance(targets, str):
            targets = [targets]
        if not isinstance(targets, list):
            continue
        for target in targets:
            if target:
                rows.append((entity_id, str(rel_type).upper(), str(target).strip()))
    return list(dict.fromkeys(rows))


def build_rows(note: Note, kind: str, mtime_ns: int, size: int, stamp: str) -> NoteRows:
    """The rows of one note; `kind` is its folder's kind (source, concept, ...)."""
    fm = note.frontmatter
    rows = NoteRows(
        note=(
            note.path,
            note.hash,
            mtime_ns,
            size,
            kind,
            note.title,
            json.dumps(fm, default=_json_default, ensure_ascii=False) if fm else "{}",
            stamp,
        )
    )
    rows.links = [
        (
            note.path,
            link.target,
            name_key(note_name(link.target)),
            link.subpath,
            link.alias,
            link.kind,
            int(link.embed),
            int(link.in_frontmatter),
            None,  # resolved_path: filled by the index once it knows every file
        )
        for link in note.links
    ]
    if note.warnings:
        return rows  # malformed or empty: reported, kept out of the workflows until fixed
    if kind == "concept":
        _concept_rows(note, rows)
    elif kind == "source":
        _source_rows(note, rows)
    return rows


def _concept_rows(note: Note, rows: NoteRows) -> None:
    fm = note.frontmatter
    entity_id = concept_id(note)
    aliases = note.aliases
    short, summary = _text(fm.get("short_summary")), _text(fm.get("summary"))
    digest = text_hash(embedding_text(note.title, aliases, short, summary))
    rows.concept = (
        entity_id,
        note.path,
        note.title,
        json.dumps(aliases, ensure_ascii=False),
        short,
        summary,
        concept_language(note),
        digest,
    )
    rows.fts = (note.title, " ; ".join(aliases), short, summary)
    rows.relations = relations_of(entity_id, fm)
    section = next((s for s in note.sections if s.heading.lower() in SOURCE_SECTIONS), None)
    if section is None:
        return
    seen = set()
    for link in note.links:
        if section.start <= link.start < section.end and link.block:
            key = (entity_id, name_key(link.name), link.block)
            if key not in seen:
                seen.add(key)
                rows.quote_concepts.append(key)


def _source_rows(note: Note, rows: NoteRows) -> None:
    fm = note.frontmatter
    processed = fm.get("processed_date")
    rows.source = (
        note.path,
        _text(fm.get("title")) or note.title,
        _text(fm.get("author")) or None,
        _text(fm.get("category")) or None,
        _json_default(processed) if processed not in (None, "") else None,
    )
    rows.quotes = [
        (note.path, quote.id, i, quote.text, quote.block_id, quote.location)
        for i, quote in enumerate(parse_quotes(note))
    ]
