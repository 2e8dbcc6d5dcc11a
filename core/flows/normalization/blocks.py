"""Blocks of similar names, for vaults whose full concept list does not fit one prompt.

Each name is looked up with the index's full-text search; a hit counts as similar when the
two names share a word stem that is rare among concept names (so `theory` linking half the
vault does not), or when one name is an acronym of the other. Connected groups of similar
concepts become units, units are packed into blocks under a token budget, and a concept with
no similar name is in no block: there is nothing the model could merge it with. A pair can
only be proposed when both names are in one block, which the units guarantee for every
similar pair.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core.flows.normalization.catalog import ConceptInfo
from core.flows.normalization.variants import (
    STOPWORDS,
    NamedConcept,
    acronym_candidates,
    words,
)
from local_llm.tokens import count_text
from vault.search import search_text

Searcher = Callable[[str, int], list[str]]
"""search(query, k) -> entity ids, best first."""


def name_tokens(name: str) -> int:
    """Tokens one name costs in a prompt's list."""
    return count_text(f"- {name}\n")


def index_searcher(store: Any) -> Searcher:
    """The index's full-text search as a Searcher."""
    return lambda query, k: [hit.entity_id for hit in search_text(store, query, k).hits]


def _stems(concept: ConceptInfo) -> set[str]:
    return {
        w for name in (concept.title, *concept.aliases) for w in words(name) if w not in STOPWORDS
    }


def similar_pairs(
    concepts: Sequence[ConceptInfo],
    names: Sequence[NamedConcept],
    search: Searcher,
    *,
    neighbors: int,
    common_share: float = 0.01,
) -> dict[str, set[str]]:
    """concept id -> ids of concepts with a similar name (symmetric)."""
    stems = {c.id: _stems(c) for c in concepts}
    df = Counter(w for ws in stems.values() for w in ws)
    cutoff = max(3, int(len(concepts) * common_share))
    edges: dict[str, set[str]] = {}

    def link(a: str, b: str) -> None:
        if a != b and a in stems and b in stems:
            edges.setdefault(a, set()).add(b)
            edges.setdefault(b, set()).add(a)

    for item in names:
        mine = {w for w in words(item.name) if w not in STOPWORDS}
        for hit in search(item.name, neighbors + 1):
            shared = mine & stems.get(hit, set())
            if any(df[w] <= cutoff for w in shared):
                link(item.concept_id, hit)
    for source, targets in acronym_candidates(names).items():
        for target in targets:
            link(source, target)
    return edges


def _components(edges: Mapping[str, set[str]]) -> list[list[str]]:
    seen: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in seen:
            continue
        stack, group = [start], []
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for nxt in sorted(edges[node] - seen):
                seen.add(nxt)
                stack.append(nxt)
        found.append(sorted(group))
    return found


def _units(edges: Mapping[str, set[str]], cost: Mapping[str, int], budget: int) -> list[list[str]]:
    """Components that fit the budget, else the neighbourhoods of their members."""
    units: list[list[str]] = []
    for group in _components(edges):
        if sum(cost[c] for c in group) <= budget:
            units.append(group)
            continue
        for member in group:
            hood = [member, *sorted(edges[member])]
            while sum(cost[c] for c in hood) > budget and len(hood) > 2:
                hood.pop()
            units.append(hood)
    return units


def pack(units: Iterable[list[str]], cost: Mapping[str, int], budget: int) -> list[list[str]]:
    """First-fit decreasing: each block's names stay within `budget` tokens."""
    blocks: list[tuple[int, list[str]]] = []
    for unit in sorted(units, key=lambda u: -sum(cost[c] for c in u)):
        for i, (used, members) in enumerate(blocks):
            extra = [c for c in unit if c not in members]
            size = sum(cost[c] for c in extra)
            if used + size <= budget:
                blocks[i] = (used + size, members + extra)
                break
        else:
            blocks.append((sum(cost[c] for c in unit), list(unit)))
    return [members for _, members in blocks]


def build_blocks(
    concepts: Sequence[ConceptInfo],
    names: Sequence[NamedConcept],
    search: Searcher,
    *,
    budget: int,
    neighbors: int,
) -> list[list[str]]:
    """Blocks of concept ids whose names each fit `budget` tokens."""
    cost: dict[str, int] = {c.id: 0 for c in concepts}
    for item in names:
        cost[item.concept_id] = cost.get(item.concept_id, 0) + name_tokens(item.name)
    edges = similar_pairs(concepts, names, search, neighbors=neighbors)
    return pack(_units(edges, cost, budget), cost, budget)
