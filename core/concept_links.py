"""How a concept note links to other concepts and to quotes, in the vault's own link style.

The frontmatter keeps the machine-readable relations (`concept_relations`: type -> UUIDs) and,
in step with them, one list property of links per relation type (`supports: ["[[Note]]"]`),
which Obsidian's Properties view and graph understand. The Conexiones section shows the same
edges, and the Fuente section links the quotes, written as the vault writes links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from core.domain import Relation, RelationType
from vault.frontmatter_edit import REMOVE, set_fields
from vault.linkformat import Linker

TYPES = list(RelationType)
RELATION_PROPERTIES: dict[RelationType, str] = {t: t.value.lower() for t in TYPES}
"""The frontmatter list property that holds each relation type's links (`supports`, ...)."""


@dataclass(frozen=True)
class QuoteRef:
    """A quote a concept cites: `[[source#^quote_id]]`."""

    source: str
    """The source note's name (file name without .md)."""
    quote_id: str
    path: str = field(default="", compare=False)
    """The source note's vault path, when known (links are written to it)."""


@dataclass(frozen=True)
class NoteLinks:
    """The links one concept note writes: where each concept's note is, in which style."""

    paths: Mapping[str, str] = field(default_factory=dict)
    """Concept UUID -> the vault path of its note (a bare note name works too)."""
    linker: Linker = field(default_factory=Linker)
    """The vault's link style."""
    note_path: str = ""
    """The note being written (relative links start from its folder)."""

    def _path(self, concept_id: str) -> str:
        return self.paths.get(concept_id, concept_id)

    def concept(self, concept_id: str) -> str:
        """A body link to a concept's note."""
        return self.linker.link(self._path(concept_id), self.note_path)

    def concept_property(self, concept_id: str) -> str:
        """The `[[...]]` a frontmatter list property holds for a concept's note."""
        return self.linker.property_link(self._path(concept_id), self.note_path)

    def quote(self, ref: QuoteRef) -> str:
        """A body link to a quote's block in its source note."""
        return self.linker.link(ref.path or ref.source, self.note_path, subpath=f"#^{ref.quote_id}")


def as_links(names: Mapping[str, str] | NoteLinks | None) -> NoteLinks:
    """NoteLinks from a plain UUID -> path (or note name) mapping."""
    if isinstance(names, NoteLinks):
        return names
    return NoteLinks(dict(names or {}))


def relations_yaml(relations: Iterable[Relation]) -> dict[str, list[str]]:
    """concept_relations as the template writes it: type -> target UUIDs, template order."""
    grouped: dict[str, list[str]] = {}
    for relation in relations:
        targets = grouped.setdefault(relation.type.value, [])
        if relation.target_id not in targets:
            targets.append(relation.target_id)
    return {t.value: grouped[t.value] for t in TYPES if t.value in grouped}


def written_links(frontmatter: Mapping[str, object]) -> dict[str, str]:
    """concept UUID -> the property link a note already holds for it (a list property is
    written in the order of its type's UUIDs), to keep links to notes the caller cannot
    name."""
    ids = frontmatter.get("concept_relations")
    found: dict[str, str] = {}
    if not isinstance(ids, dict):
        return found
    for rel_type, targets in ids.items():
        values = frontmatter.get(str(rel_type).lower())
        if isinstance(targets, list) and isinstance(values, list) and len(values) == len(targets):
            found.update({str(t): str(v) for t, v in zip(targets, values, strict=True) if v})
    return found


def relation_properties(
    relations: Iterable[Relation], links: NoteLinks, known: Mapping[str, str] | None = None
) -> dict[str, object]:
    """Every relation type's list property: its links, or REMOVE when it has none. A target
    `links` cannot name keeps the link `known` has for it."""
    grouped = relations_yaml(relations)
    known = known or {}

    def link(concept_id: str) -> str:
        if concept_id not in links.paths and concept_id in known:
            return known[concept_id]
        return links.concept_property(concept_id)

    return {
        RELATION_PROPERTIES[t]: [link(i) for i in grouped[t.value]]
        if t.value in grouped
        else REMOVE
        for t in TYPES
    }


def set_relations(
    text: str, relations: list[Relation], links: NoteLinks, frontmatter: Mapping[str, object]
) -> str:
    """The note (whose frontmatter is `frontmatter`) with `concept_relations` and the link
    properties set to these relations; fields whose value does not change keep their bytes."""
    fields: dict[str, object] = {"concept_relations": relations_yaml(relations)}
    fields |= relation_properties(relations, links, written_links(frontmatter))
    return set_fields(text, fields)


def connections_lines(relations: Iterable[Relation], links: NoteLinks) -> list[str]:
    """The Conexiones lines: all nine types, each with its links."""
    by_type: dict[RelationType, list[str]] = {t: [] for t in TYPES}
    for relation in relations:
        by_type[relation.type].append(links.concept(relation.target_id))
    return [f"- {t.value}: {', '.join(dict.fromkeys(by_type[t]))}".rstrip() for t in TYPES]
