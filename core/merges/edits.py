"""Minimal text edits a merge makes to concept notes (every other byte stays as it was).

- the canonical gains the variants' names as aliases, their quotes, their relations
  (retargeted, no duplicates, no self-relations) and their content under a section that
  names where it came from; links to its own cluster leave its Conexiones lines;
- any other concept's `concept_relations` UUIDs that named a variant name the canonical.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from core.concept_links import NoteLinks, set_relations
from core.concept_notes import (
    ConceptNote,
    add_quotes,
    add_relations,
    template_sections,
)
from core.domain import Relation, RelationType
from vault.blocktext import guard
from vault.frontmatter_edit import set_fields
from vault.index_rows import relations_of
from vault.links import Link, parse_links
from vault.markdown import newline_of
from vault.note import Note, parse_note
from vault.resolve import name_key
from vault.titles import note_title

MERGED_HEADING = {"es": "Fusionado desde: {title}", "en": "Merged from: {title}"}


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
        edge = Relation(
            source_id=source_id,
            type=relation.type,
            target_id=target,
            explanation=relation.explanation,
        )
        if target != source_id and edge.key not in seen:
            seen.add(edge.key)
            result.append(edge)
    return result


def retarget_frontmatter(text: str, id_map: Mapping[str, str], links: NoteLinks) -> str:
    """Any note: its concept_relations UUIDs mapped through id_map, and its relation link
    properties kept in step (minimal edit)."""
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
    return set_relations(text, retarget(own or "?", relations, id_map), links, note.frontmatter)


def _as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else [value]


_RELATION_LINE = re.compile(
    rf"^[-*][ \t]+(?:{'|'.join(t.value for t in RelationType)}):[^\r\n]*", re.M
)


def _relation_lines(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of every `- TYPE: links` line in text[start:end]."""
    return [(m.start(), m.end()) for m in _RELATION_LINE.finditer(text, start, end or len(text))]


def _rewrite_line(line: str, keep: Callable[[Link], bool]) -> str:
    """A `- TYPE: links` line keeping only the links `keep(link)` accepts (in order)."""
    head, _, rest = line.partition(":")
    links = parse_links(rest, 0)
    kept = [rest[x.start : x.end] for x in links if keep(x)]
    if len(kept) == len(links):
        return line
    return head + ":" + (" " + ", ".join(kept) if kept else "")


def _edit_lines(text: str, lines: list[tuple[int, int]], keep: Callable[[Link], bool]) -> str:
    for start, end in reversed(lines):
        text = text[:start] + _rewrite_line(text[start:end], keep) + text[end:]
    return text


def drop_links_to(text: str, names: Iterable[str], language: str) -> str:
    """Remove the links naming one of `names` from the Conexiones relation lines."""
    wanted = {name_key(n) for n in names}
    section = template_sections(reparse(text), language).links
    if section is None:
        return text
    lines = _relation_lines(text, section.content_start, section.end)
    return _edit_lines(text, lines, lambda link: name_key(link.name) not in wanted)


def dedupe_relation_links(text: str) -> str:
    """In `- TYPE: [[A]], [[B|x]]` lines, a second link to the same note is dropped (after a
    merge `[[Canonical]], [[Canonical|Variant]]` would otherwise name one relation twice)."""

    def keep_first(lines_text: str) -> str:
        seen: set[str] = set()

        def keep(link: Link) -> bool:
            key = name_key(link.name)
            fresh = key not in seen
            seen.add(key)
            return fresh

        return _rewrite_line(lines_text, keep)

    for start, end in reversed(_relation_lines(text)):
        text = text[:start] + keep_first(text[start:end]) + text[end:]
    return text


def merged_section(variant: ConceptNote, language: str, newline: str = "\n") -> str:
    """The section that carries a variant's content into the canonical (its text guarded:
    a heading or `---` inside it cannot end the section or start another)."""
    title = note_title(variant.concept.title)
    heading = MERGED_HEADING.get(language, MERGED_HEADING["es"]).format(title=title)
    parts = []
    if variant.concept.summary:
        parts.append("> " + guard(variant.concept.summary).replace("\n", "\n> "))
    parts.extend(guard(p) for p in (variant.concept.concept, variant.concept.analysis) if p.strip())
    body = "\n\n".join(parts) if parts else "(sin contenido)"
    return f"## {heading}{newline}{body.replace(chr(10), newline)}{newline}"


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
    links: NoteLinks,
    *,
    new_title: str | None = None,
    member_names: Iterable[str] = (),
) -> str:
    """The canonical note's text after absorbing the variants. `links` names every concept's
    note as it will be after the apply; `member_names` are the cluster's note names (links to
    them leave the canonical's Conexiones)."""
    language = canonical.concept.language
    new_title = note_title(new_title) if new_title else None
    own_id, title = canonical.concept.id, new_title or canonical.concept.title
    members = [canonical.concept.title, *(v.concept.title for v in variants), *member_names]
    text = drop_links_to(text, members, language)
    gathered = [*canonical.relations, *(r for v in variants for r in v.relations)]
    relations = retarget(own_id, gathered, id_map)
    text = add_relations(text, relations, links)
    text = set_relations(text, relations, links, reparse(text).frontmatter)
    extra = [canonical.concept.title] if new_title else []
    for variant in variants:
        extra.extend([variant.concept.title, *variant.concept.aliases])
    text = set_fields(text, {"aliases": merge_aliases(canonical.concept.aliases, title, extra)})
    text = add_quotes(text, [q for v in variants for q in v.quotes], links)
    if new_title:
        heading = rf"^# {re.escape(canonical.concept.title)}[ \t]*$"
        text = re.sub(heading, lambda _: f"# {new_title}", text, count=1, flags=re.M)
    nl = newline_of(text)
    if not text.endswith(nl):
        text += nl
    for variant in variants:
        text += nl + merged_section(variant, language, nl)
    return text
