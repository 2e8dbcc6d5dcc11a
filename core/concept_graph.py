"""The concept graph around one concept: its relations by type, in both directions.

Relations live in the concept notes' frontmatter (`concept_relations`: type -> UUIDs) and are
indexed in `concept_relations` (vault.index). Outgoing edges are what the concept's own note
says (`A SUPPORTS B`); incoming ones are what other notes say about it (`C PART_OF A`). A
target whose note is not in the index (deleted, renamed outside noema, a typo) shows as a
missing note, never dropped. Proposed edges (an extraction waiting at its review) can be laid
over the vault's, marked as proposed, with titles for concepts that have no note yet.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from core.domain import RelationType
from core.store import Store

Direction = Literal["out", "in"]
TYPE_ORDER = [t.value for t in RelationType]
MAX_FOUND = 20


@dataclass(frozen=True)
class ConceptNode:
    """A concept as the graph shows it."""

    id: str
    title: str
    short_summary: str = ""
    path: str = ""
    """Its note in the vault ('' when there is none: missing, or only proposed)."""
    aliases: tuple[str, ...] = ()

    @property
    def in_vault(self) -> bool:
        return bool(self.path)


@dataclass(frozen=True)
class Edge:
    """One relation seen from the concept at the centre."""

    type: str
    direction: Direction
    other: ConceptNode
    proposed: bool = False
    """From a review waiting for approval, not (yet) in the vault."""
    note: str = ""
    """Why it was proposed (the model's explanation), for proposed edges."""


@dataclass(frozen=True)
class ProposedRelation:
    """A relation an extraction proposes: `source_id TYPE target_id`."""

    source_id: str
    type: str
    target_id: str
    explanation: str = ""


@dataclass
class Neighbourhood:
    """A concept and its relations, grouped by direction then type (the spec's order)."""

    concept: ConceptNode
    outgoing: dict[str, list[Edge]] = field(default_factory=dict)
    incoming: dict[str, list[Edge]] = field(default_factory=dict)

    def edges(self) -> list[Edge]:
        return [e for group in (self.outgoing, self.incoming) for es in group.values() for e in es]


def _nodes(store: Store, ids: Iterable[str]) -> dict[str, ConceptNode]:
    wanted = list(dict.fromkeys(ids))
    found: dict[str, ConceptNode] = {}
    for start in range(0, len(wanted), 500):  # SQLite's variable limit
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = store.query(
            "SELECT entity_id, title, short_summary, path, aliases_json FROM concepts"
            f" WHERE entity_id IN ({marks})",
            chunk,
        )
        for row in rows:
            found[row[0]] = ConceptNode(row[0], row[1], row[2] or "", row[3], _aliases(row[4]))
    return found


def _aliases(text: str | None) -> tuple[str, ...]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return ()
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def missing(concept_id: str, titles: Mapping[str, str]) -> ConceptNode:
    """A concept without a note: titled by a proposal, else named as missing."""
    return ConceptNode(concept_id, titles.get(concept_id) or f"(no note: {concept_id[:8]})")


def _group(edges: Iterable[Edge]) -> dict[str, list[Edge]]:
    grouped: dict[str, list[Edge]] = {}
    for edge in edges:
        grouped.setdefault(edge.type, []).append(edge)
    order = {t: i for i, t in enumerate(TYPE_ORDER)}
    return {
        t: sorted(grouped[t], key=lambda e: (e.proposed, e.other.title.casefold()))
        for t in sorted(grouped, key=lambda t: (order.get(t, len(order)), t))
    }


def neighbourhood(
    store: Store,
    concept_id: str,
    proposed: Iterable[ProposedRelation] = (),
    titles: Mapping[str, str] | None = None,
) -> Neighbourhood:
    """The concept and its relations in the index, plus `proposed` ones that touch it
    (`titles` names concepts that have no note yet)."""
    titles = titles or {}
    rows = store.query(
        "SELECT 'out', type, target_id, '' FROM concept_relations WHERE source_id = ?"
        " UNION ALL SELECT 'in', type, source_id, '' FROM concept_relations WHERE target_id = ?",
        (concept_id, concept_id),
    )
    found = [(r[0], r[1], r[2], False, "") for r in rows]
    for p in proposed:
        if p.source_id == concept_id:
            found.append(("out", p.type, p.target_id, True, p.explanation))
        elif p.target_id == concept_id:
            found.append(("in", p.type, p.source_id, True, p.explanation))
    nodes = _nodes(store, [concept_id, *(f[2] for f in found)])
    seen: set[tuple[str, str, str]] = set()
    edges: list[Edge] = []
    for direction, rel_type, other, is_proposed, note in found:
        if (direction, rel_type, other) in seen:  # proposed again what the vault already says
            continue
        seen.add((direction, rel_type, other))
        node = nodes.get(other) or missing(other, titles)
        edges.append(Edge(rel_type, direction, node, is_proposed, note))
    centre = nodes.get(concept_id) or missing(concept_id, titles)
    return Neighbourhood(
        centre,
        _group(e for e in edges if e.direction == "out"),
        _group(e for e in edges if e.direction == "in"),
    )


def folded(text: str) -> str:
    """Lower-cased without accents (`Práctica` and `practica` match), any script."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def find_concepts(store: Store, query: str, limit: int = MAX_FOUND) -> list[ConceptNode]:
    """Concepts whose title or an alias contains what was typed (case and accents aside),
    best first: the title starts with it, then the title contains it, then an alias does."""
    text = folded(" ".join(query.split()))
    if not text:
        return []
    rows = store.query(
        "SELECT entity_id, title, short_summary, path, aliases_json FROM concepts"
        " ORDER BY title COLLATE NOCASE"
    )
    ranked = []
    for row in rows:
        title, aliases = folded(row[1]), _aliases(row[4])
        rank = 0 if title.startswith(text) else 1 if text in title else 2
        if rank == 2 and not any(text in folded(a) for a in aliases):
            continue
        ranked.append((rank, ConceptNode(row[0], row[1], row[2] or "", row[3], aliases)))
    ranked.sort(key=lambda pair: pair[0])
    return [node for _rank, node in ranked[:limit]]
