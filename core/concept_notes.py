"""Concept notes: core.domain.Concept + relations <-> the note template of spec 002, 3.2.

Frontmatter: entity_id, entity_type, short_summary, summary, aliases, concept_relations (type ->
UUIDs) and one list of links per relation type (`core.concept_links`). Sections: Concepto /
Análisis / Conexiones (all nine relation types, as links) / Fuente (quote links); English
headings when the concept is in English. The frontmatter UUIDs are the truth; the link
properties and Conexiones show the same edges by name.

Text a model wrote (title, concept, analysis) cannot restructure the note: the title is
`vault.titles.note_title` (no `#`, `|`, `[[`, newline), the two texts are `vault.blocktext`
guarded (a `## Fuente` or `---` line is escaped). Parsing follows the note's own structure
(the template's headings, found from the end), so a note noema wrote reads back to what it
wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.concept_links import (
    NoteLinks,
    QuoteRef,
    as_links,
    connections_lines,
    relation_properties,
    relations_yaml,
    set_relations,
)
from core.domain import Concept, Relation, RelationType
from vault.blocktext import clean_text, guard, unguard
from vault.frontmatter_edit import REMOVE, dump_yaml
from vault.index_rows import concept_language, relations_of
from vault.markdown import Section, newline_of
from vault.note import Note, parse_note, read_note
from vault.titles import note_title

__all__ = [
    "ConceptNote",
    "QuoteRef",
    "NoteLinks",
    "add_quotes",
    "add_relations",
    "headings_for",
    "parse_concept_note",
    "read_concept_note",
    "relations_yaml",
    "render_concept_note",
]

HEADINGS = {
    "es": ("Concepto", "Análisis", "Conexiones", "Fuente"),
    "en": ("Concept", "Analysis", "Connections", "Source"),
}


@dataclass
class ConceptNote:
    """What a concept note holds."""

    concept: Concept
    relations: list[Relation] = field(default_factory=list)
    quotes: list[QuoteRef] = field(default_factory=list)


def headings_for(language: str) -> tuple[str, str, str, str]:
    """The template's section headings: Spanish for `es`, English for every other language."""
    return HEADINGS.get(language, HEADINGS["en"])


def render_concept_note(
    concept: Concept,
    relations: Iterable[Relation],
    names: Mapping[str, str] | NoteLinks,
    quotes: Iterable[QuoteRef] = (),
) -> str:
    """The full text of a new concept note. `names` maps concept UUIDs to the vault paths (or
    names) of their notes, or is the NoteLinks that writes the links in the vault's style."""
    links = as_links(names)
    relations = [r for r in relations if r.source_id == concept.id]
    meta: dict[str, object] = {
        "entity_id": concept.id,
        "entity_type": "Concept",
        "short_summary": clean_text(concept.short_summary),
        "summary": clean_text(concept.summary),
        "aliases": [clean_text(a) for a in concept.aliases if clean_text(a)],
        "concept_relations": relations_yaml(relations),
    }
    meta |= {k: v for k, v in relation_properties(relations, links).items() if v is not REMOVE}
    if concept.language not in HEADINGS:
        meta["language"] = concept.language
    h_concept, h_analysis, h_links, h_source = headings_for(concept.language)
    quote_lines = [f"- {links.quote(q)}" for q in dict.fromkeys(quotes)]
    parts = [
        f"---\n{dump_yaml(meta)}---\n# {note_title(concept.title)}\n",
        f"## {h_concept}\n{guard(concept.concept)}\n",
        f"## {h_analysis}\n{guard(concept.analysis)}\n",
        f"## {h_links}\n" + "\n".join(connections_lines(relations, links)) + "\n",
        f"## {h_source}\n" + "".join(line + "\n" for line in quote_lines),
    ]
    return "\n".join(parts)


@dataclass(frozen=True)
class TemplateSections:
    """The template's four sections of a note, as they really are in it (None when absent)."""

    concept: Section | None
    analysis: Section | None
    links: Section | None
    source: Section | None

    def text_of(self, note: Note, name: str) -> str:
        """The body of `concept` or `analysis`: everything up to the next template heading
        (a heading the text itself holds does not end it)."""
        section = getattr(self, name)
        if section is None:
            return ""
        later = [
            s for s in (self.analysis, self.links, self.source) if s and s.start > section.start
        ]
        end = min((s.start for s in later), default=section.end)
        return note.text[section.content_start : end]


def template_sections(note: Note, language: str) -> TemplateSections:
    """Find the template's headings from the end: Fuente is the last `## Fuente`, Conexiones
    the last before it, and so on; text above them (a model's, or an old note's) may hold
    look-alike headings without moving the boundaries."""
    # the headings the note was written with (an older note may not match its language)
    names = [n.casefold() for n in headings_for(concept_language(note) or language)]
    level2 = [s for s in note.sections if s.level == 2]

    def last(name: str, before: int | None) -> Section | None:
        found = [
            s
            for s in level2
            if s.heading.casefold() == name and (before is None or s.start < before)
        ]
        return found[-1] if found else None

    source = last(names[3], None)
    links = last(names[2], source.start if source else None)
    limit = links.start if links else (source.start if source else None)
    analysis = last(names[1], limit)
    limit = analysis.start if analysis else limit
    concept = next(
        (
            s
            for s in level2
            if s.heading.casefold() == names[0] and (limit is None or s.start < limit)
        ),
        None,
    )
    return TemplateSections(concept, analysis, links, source)


def parse_concept_note(note: Note) -> ConceptNote:
    """The Concept, its outgoing relations and its cited quotes, as a note holds them."""
    fm = note.frontmatter
    language = str(fm.get("language") or concept_language(note) or "es")
    found = template_sections(note, language)
    h1 = next((s.heading for s in note.sections if s.level == 1), None)
    concept = Concept(
        id=str(fm.get("entity_id") or ""),
        title=h1 or note.title,
        aliases=note.aliases,
        short_summary=str(fm.get("short_summary") or ""),
        summary=str(fm.get("summary") or ""),
        concept=unguard(found.text_of(note, "concept").strip()),
        analysis=unguard(found.text_of(note, "analysis").strip()),
        language=language,
    )
    relations = []
    for source_id, rel_type, target in relations_of(concept.id, fm):
        if rel_type in RelationType.__members__:
            relations.append(
                Relation(source_id=source_id, type=RelationType(rel_type), target_id=target)
            )
    quotes: list[QuoteRef] = []
    if found.source is not None:
        section = found.source
        for link in note.links:
            if section.start <= link.start < section.end and link.block:
                quotes.append(QuoteRef(link.name, link.block))
    return ConceptNote(concept, relations, list(dict.fromkeys(quotes)))


def read_concept_note(root: Path, rel: str) -> ConceptNote:
    return parse_concept_note(read_note(Path(root), rel))


# -- minimal edits of existing notes -----------------------------------------------------


def _append_to_section(text: str, section: Section | None, heading: str, lines: list[str]) -> str:
    """Add lines after the last non-blank line of a section (or a new section at the end)."""
    nl = newline_of(text)
    if section is None:
        ending = "" if text.endswith("\n") or not text else nl
        return text + ending + nl + f"## {heading}{nl}" + "".join(line + nl for line in lines)
    content = text[section.content_start : section.end]
    stripped = content.rstrip()
    insert_at = section.content_start + len(stripped)
    block = (
        "".join(nl + line for line in lines) if stripped else "".join(line + nl for line in lines)
    )
    if not stripped:
        insert_at = section.content_start
        return text[:insert_at] + block + text[insert_at:]
    if insert_at == len(text):
        block += nl
    return text[:insert_at] + block + text[insert_at:]


def add_relations(
    text: str, relations: Iterable[Relation], names: Mapping[str, str] | NoteLinks
) -> str:
    """The note with these outgoing relations added to its frontmatter (ids and link
    properties) and its Conexiones lines."""
    links = as_links(names)
    parsed = _parse_text(text)
    existing = {r.key for r in parsed.relations}
    new = [r for r in relations if r.key not in existing and r.source_id == parsed.concept.id]
    if not new:
        return text
    text = set_relations(text, [*parsed.relations, *new], links, _reparse(text).frontmatter)
    language = parsed.concept.language
    heading = headings_for(language)[2]
    for relation in new:
        link = links.concept(relation.target_id)
        section = template_sections(_reparse(text), language).links
        text = _add_to_connection_line(text, section, relation.type, link, heading)
    return text


def _add_to_connection_line(
    text: str, section: Section | None, rel_type: RelationType, link: str, heading: str
) -> str:
    if section is not None:
        pattern = re.compile(rf"^[-*][ \t]+{rel_type.value}:[^\r\n]*", re.MULTILINE)
        match = pattern.search(text, section.content_start, section.end)
        if match is not None:
            line: str = match.group(0)
            if link in line:
                return text
            sep = " " if line.rstrip().endswith(":") else ", "
            new_line = line.rstrip() + sep + link
            return text[: match.start()] + new_line + text[match.end() :]
    return _append_to_section(text, section, heading, [f"- {rel_type.value}: {link}"])


def add_quotes(
    text: str, quotes: Iterable[QuoteRef], names: Mapping[str, str] | NoteLinks | None = None
) -> str:
    """The note with these quote links added to its Fuente / Source section."""
    links = as_links(names)
    parsed = _parse_text(text)
    new = [q for q in dict.fromkeys(quotes) if q not in parsed.quotes]
    if not new:
        return text
    language = parsed.concept.language
    section = template_sections(_reparse(text), language).source
    lines = [f"- {links.quote(q)}" for q in new]
    return _append_to_section(text, section, headings_for(language)[3], lines)


def _reparse(text: str) -> Note:
    return parse_note("note.md", text.encode("utf-8"))


def _parse_text(text: str) -> ConceptNote:
    return parse_concept_note(_reparse(text))
