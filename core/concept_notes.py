"""Concept notes: core.domain.Concept + relations <-> the note template of spec 002, 3.2.

Frontmatter: entity_id, entity_type, short_summary, summary, aliases, concept_relations (type ->
UUIDs). Sections: Concepto / Análisis / Conexiones (all nine relation types, [[names]]) /
Fuente ([[Source#^block]] quote links); English headings when the concept is in English.
The frontmatter UUIDs are the truth; Conexiones shows the same edges by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from core.domain import Concept, Relation, RelationType
from vault.frontmatter_edit import set_fields
from vault.index_rows import concept_language, relations_of
from vault.markdown import newline_of
from vault.note import Note, parse_note, read_note

HEADINGS = {
    "es": ("Concepto", "Análisis", "Conexiones", "Fuente"),
    "en": ("Concept", "Analysis", "Connections", "Source"),
}
TYPES = list(RelationType)


@dataclass(frozen=True)
class QuoteRef:
    """A quote a concept cites: `[[source#^quote_id]]`."""

    source: str
    """The source note's name (file name without .md)."""
    quote_id: str


@dataclass
class ConceptNote:
    """What a concept note holds."""

    concept: Concept
    relations: list[Relation] = field(default_factory=list)
    quotes: list[QuoteRef] = field(default_factory=list)


def headings_for(language: str) -> tuple[str, str, str, str]:
    """The template's section headings: Spanish for `es`, English for every other language."""
    return HEADINGS.get(language, HEADINGS["en"])


def _headings_of(note: Note, language: str) -> tuple[str, str, str, str]:
    """The headings a note was written with (an older note may not match its language)."""
    return headings_for(concept_language(note) or language)


def relations_yaml(relations: Iterable[Relation]) -> dict[str, list[str]]:
    """concept_relations as the template writes it: type -> target UUIDs, template order."""
    grouped: dict[str, list[str]] = {}
    for relation in relations:
        targets = grouped.setdefault(relation.type.value, [])
        if relation.target_id not in targets:
            targets.append(relation.target_id)
    return {t.value: grouped[t.value] for t in TYPES if t.value in grouped}


def _connections_lines(relations: Iterable[Relation], names: Mapping[str, str]) -> list[str]:
    by_type: dict[RelationType, list[str]] = {t: [] for t in TYPES}
    for relation in relations:
        by_type[relation.type].append(f"[[{names.get(relation.target_id, relation.target_id)}]]")
    return [f"- {t.value}: {', '.join(dict.fromkeys(by_type[t]))}".rstrip() for t in TYPES]


def render_concept_note(
    concept: Concept,
    relations: Iterable[Relation],
    names: Mapping[str, str],
    quotes: Iterable[QuoteRef] = (),
) -> str:
    """The full text of a new concept note. `names` maps concept UUIDs to note titles."""
    relations = [r for r in relations if r.source_id == concept.id]
    meta: dict[str, object] = {
        "entity_id": concept.id,
        "entity_type": "Concept",
        "short_summary": concept.short_summary,
        "summary": concept.summary,
        "aliases": list(concept.aliases),
        "concept_relations": relations_yaml(relations),
    }
    if concept.language not in HEADINGS:
        meta["language"] = concept.language
    fm = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10**6)
    h_concept, h_analysis, h_links, h_source = headings_for(concept.language)
    quote_lines = [f"- [[{q.source}#^{q.quote_id}]]" for q in dict.fromkeys(quotes)]
    parts = [
        f"---\n{fm}---\n# {concept.title}\n",
        f"## {h_concept}\n{concept.concept.strip()}\n",
        f"## {h_analysis}\n{concept.analysis.strip()}\n",
        f"## {h_links}\n" + "\n".join(_connections_lines(relations, names)) + "\n",
        f"## {h_source}\n" + "".join(line + "\n" for line in quote_lines),
    ]
    return "\n".join(parts)


def _section_body(note: Note, name: str) -> str:
    return note.section_text(name).strip()


def parse_concept_note(note: Note) -> ConceptNote:
    """The Concept, its outgoing relations and its cited quotes, as a note holds them."""
    fm = note.frontmatter
    language = str(fm.get("language") or concept_language(note) or "es")
    h_concept, h_analysis, _, h_source = _headings_of(note, language)
    h1 = next((s.heading for s in note.sections if s.level == 1), None)
    concept = Concept(
        id=str(fm.get("entity_id") or ""),
        title=h1 or note.title,
        aliases=note.aliases,
        short_summary=str(fm.get("short_summary") or ""),
        summary=str(fm.get("summary") or ""),
        concept=_section_body(note, h_concept),
        analysis=_section_body(note, h_analysis),
        language=language,
    )
    relations = []
    for source_id, rel_type, target in relations_of(concept.id, fm):
        if rel_type in RelationType.__members__:
            relations.append(
                Relation(source_id=source_id, type=RelationType(rel_type), target_id=target)
            )
    section = note.section(h_source)
    quotes: list[QuoteRef] = []
    if section is not None:
        for link in note.links:
            if section.start <= link.start < section.end and link.block:
                quotes.append(QuoteRef(link.name, link.block))
    return ConceptNote(concept, relations, list(dict.fromkeys(quotes)))


def read_concept_note(root: Path, rel: str) -> ConceptNote:
    return parse_concept_note(read_note(Path(root), rel))


# -- minimal edits of existing notes -----------------------------------------------------


def _append_to_section(text: str, note: Note, heading: str, lines: list[str]) -> str:
    """Add lines after the last non-blank line of a section (or a new section at the end)."""
    nl = newline_of(text)
    section = note.section(heading)
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


def add_relations(text: str, relations: Iterable[Relation], names: Mapping[str, str]) -> str:
    """The note with these outgoing relations added to its frontmatter and Conexiones lines."""
    parsed = _parse_text(text)
    existing = {r.key for r in parsed.relations}
    new = [r for r in relations if r.key not in existing and r.source_id == parsed.concept.id]
    if not new:
        return text
    text = set_fields(text, {"concept_relations": relations_yaml([*parsed.relations, *new])})
    note = _reparse(text)
    heading = _headings_of(note, parsed.concept.language)[2]
    section = note.section(heading)
    for relation in new:
        link = f"[[{names.get(relation.target_id, relation.target_id)}]]"
        text = _add_to_connection_line(text, note, section, relation.type, link, heading)
        note = _reparse(text)
        section = note.section(heading)
    return text


def _add_to_connection_line(text, note, section, rel_type, link, heading) -> str:
    if section is not None:
        pattern = re.compile(rf"^[-*][ \t]+{rel_type.value}:[^\r\n]*", re.MULTILINE)
        match = pattern.search(text, section.content_start, section.end)
        if match is not None:
            line = match.group(0)
            if link in line:
                return text
            sep = " " if line.rstrip().endswith(":") else ", "
            new_line = line.rstrip() + sep + link
            return text[: match.start()] + new_line + text[match.end() :]
    return _append_to_section(text, note, heading, [f"- {rel_type.value}: {link}"])


def add_quotes(text: str, quotes: Iterable[QuoteRef]) -> str:
    """The note with these quote links added to its Fuente / Source section."""
    parsed = _parse_text(text)
    new = [q for q in dict.fromkeys(quotes) if q not in parsed.quotes]
    if not new:
        return text
    note = _reparse(text)
    heading = _headings_of(note, parsed.concept.language)[3]
    return _append_to_section(text, note, heading, [f"- [[{q.source}#^{q.quote_id}]]" for q in new])


def _reparse(text: str) -> Note:
    return parse_note("note.md", text.encode("utf-8"))


def _parse_text(text: str) -> ConceptNote:
    return parse_concept_note(_reparse(text))
