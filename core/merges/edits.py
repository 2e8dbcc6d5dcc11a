"""Minimal text edits a merge makes to concept notes (every other byte stays as it was).

- the canonical gains the variants' names as aliases, their quotes, their relations
  (retargeted, no duplicates, no self-relations) and their content under a section that
  names where it came from; links to its own cluster leave its Conexiones lines;
- any other concept's `concept_relations` UUIDs that named a variant name the canonical.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from core.concept_notes import (
    ConceptNote,
    add_quotes,
    add_relations,
    headings_for,
    relations_yaml,
)
from core.domain import Relation, RelationType
from vault.frontmatter_edit import set_fields
from vault.index_rows import relations_of
from vault.links import note_name
from vault.markdown import newline_of
from vault.note import Note, parse_note

MERGED_HEADING = {"es": "Fusionado desde: {title}", "en": "Merged from: {title}"}
_WIKI = re.compile(r"\[\[([^\[\]|#]*)(#[^\[\]|]*)?(\|[^\[\]]*)?\]\]")


def reparse(text: str, path: str = "note.md") -> Note:
    return parse_note(path, text.encode("utf-8"))


def retarget(
    source_id: str, relations: Iterable[Relation], id_map: Mapping[str, str]
) -> list[Relation]:
    """Relations from `source_id` with targets mapped to their canonicals; no self, no dups."""
    seen: set[tuple[str, RelationType, str]] = set()
    result = []
    for relation in relations:
        target = id_map.get(relation.target_id, relation.target_id)
        edge = Relation(source_id=source_id, type=relation.type, target_id=target,
                        explanation=relation.explanation)  # fmt: skip
        if target != source_id and edge.key not in seen:
            seen.add(edge.key)
            result.append(edge)
    return result


def retarget_frontmatter(text: str, id_map: Mapping[str, str]) -> str:
    """Any note: its concept_relations UUIDs mapped through id_map (minimal edit)."""
    note = reparse(text)
    raw = note.frontmatter.get("concept_relations")
    if not isinstance(raw, dict) or not any(
        str(t).strip() in id_map for targets in raw.values() for t in _as_list(targets)
    ):
        return text
    own = str(note.frontmatter.get("entity_id") or "")
    rows = relations_of(own, note.frontmatter)
    relations = [
        Relation(source_id=own or "?", type=RelationType(t), target_id=target)
        for _, t, target in rows
        if t in RelationType.__members__
    ]
    new = relations_yaml(retarget(own or "?", relations, id_map))
    return set_fields(text, {"concept_relations": new})


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else [value]


def drop_links_to(text: str, names: Iterable[str], heading: str) -> str:
    """Remove `[[name]]` entries naming one of `names` from the relation lines of a section."""
    wanted = {n.lower() for n in names}
    note = reparse(text)
    section = note.section(heading)
    if section is None:
        return text
    body = text[section.content_start : section.end]

    def clean(line_match: re.Match[str]) -> str:
        head, rest = line_match.group(1), line_match.group(2)
        links = [m.group(0) for m in _WIKI.finditer(rest)]
        kept = [link for link in links if note_name(_WIKI.match(link).group(1).strip()).lower()
                not in wanted]  # fmt: skip
        if len(kept) == len(links):
            return line_match.group(0)
        return head + (" " + ", ".join(kept) if kept else "")

    new_body = re.sub(r"^([-*][ \t]+[A-Z_]+:)([^\r\n]*)", clean, body, flags=re.M)
    return text[: section.content_start] + new_body + text[section.end :]


_RELATION_LINE = re.compile(
    rf"^([-*][ \t]+(?:{'|'.join(t.value for t in RelationType)}):)([^\r\n]*)", re.M
)


def dedupe_relation_links(text: str) -> str:
    """In `- TYPE: [[A]], [[B|x]]` lines, a second link to the same note is dropped (after a
    merge `[[Canonical]], [[Canonical|Variant]]` would otherwise name one relation twice)."""

    def clean(match: re.Match[str]) -> str:
        links = [m.group(0) for m in _WIKI.finditer(match.group(2))]
        seen: set[str] = set()
        kept = []
        for link in links:
            target = note_name(_WIKI.match(link).group(1).strip()).lower()
            if target not in seen:
                seen.add(target)
                kept.append(link)
        if len(kept) == len(links):
            return match.group(0)
        return match.group(1) + " " + ", ".join(kept)

    return _RELATION_LINE.sub(clean, text)


def merged_section(variant: ConceptNote, language: str, newline: str = "\n") -> str:
    """The section that carries a variant's content into the canonical."""
    heading = MERGED_HEADING.get(language, MERGED_HEADING["es"]).format(title=variant.concept.title)
    parts = []
    if variant.concept.summary:
        parts.append(f"> {variant.concept.summary}")
    parts.extend(p for p in (variant.concept.concept, variant.concept.analysis) if p.strip())
    body = (newline + newline).join(parts) if parts else "(sin contenido)"
    return f"## {heading}{newline}{body}{newline}"


def merge_aliases(current: list[str], title: str, extra: Iterable[str]) -> list[str]:
    """Aliases plus the extra names, without duplicates (case-insensitive) or the title."""
    result, seen = [], {title.casefold()}
    for alias in [*current, *extra]:
        if alias.strip() and alias.casefold() not in seen:
            seen.add(alias.casefold())
            result.append(alias)
    return result


def merge_into_canonical(
    text: str,
    canonical: ConceptNote,
    variants: list[ConceptNote],
    id_map: Mapping[str, str],
    names: Mapping[str, str],
    *,
    new_title: str | None = None,
) -> str:
    """The canonical note's text after absorbing the variants."""
    language = canonical.concept.language
    own_id, title = canonical.concept.id, new_title or canonical.concept.title
    member_names = [canonical.concept.title, *(v.concept.title for v in variants)]
    text = drop_links_to(text, member_names, headings_for(language)[2])
    gathered = [*canonical.relations, *(r for v in variants for r in v.relations)]
    relations = retarget(own_id, gathered, id_map)
    text = add_relations(text, relations, names)
    text = set_fields(text, {"concept_relations": relations_yaml(relations)})
    extra = [canonical.concept.title] if new_title else []
    for variant in variants:
        extra.extend([variant.concept.title, *variant.concept.aliases])
    text = set_fields(text, {"aliases": merge_aliases(canonical.concept.aliases, title, extra)})
    text = add_quotes(text, [q for v in variants for q in v.quotes])
    if new_title:
        heading = rf"^# {re.escape(canonical.concept.title)}[ \t]*$"
        text = re.sub(heading, f"# {new_title}", text, count=1, flags=re.M)
    nl = newline_of(text)
    if not text.endswith(nl):
        text += nl
    for variant in variants:
        text += nl + merged_section(variant, language, nl)
    return text
