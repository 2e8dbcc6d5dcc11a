"""Blocks of similar names, for vaults whose full concept list does not fit one prompt.

Each name is looked up with the index's full-text search; a hit counts as similar when the
two names share a word stem that is rare among concept names (so `theory` linking half the
vault does not), or when one name is an acronym of the other. When the index stores concept
vectors for the configured embedding model, two concepts whose stored vectors are close are
similar too (`neighbours.py`): that is how synonyms sharing no word ("Working memory" /
"Short-term store") reach one block; without vectors only the lexical links count. Connected
groups of similar concepts become units (split into neighbourhoods when a group is too large),
units are packed into blocks under a token budget, and a concept with no similar name is in no
block: there is nothing the model could merge it with. A pair can only be proposed when both
names are in one block, which the units guarantee for every similar pair.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from core.flows.normalization.catalog import ConceptInfo
from core.flows.normalization.variants import (
    STOPWORDS,
    NamedConcept,
    acronym_candidates,
    words,
)
from local_llm.tokens import count_text
from vault.search import search_text

if TYPE_CHECKING:
    from core.store import Store

Searcher = Callable[[str, int], list[str]]
"""search(query, k) -> entity ids, best first."""


def name_tokens(name: str) -> int:
    """Tokens one name costs in a prompt's list."""
    return count_text(f"- {name}\n")


def index_searcher(store: Store) -> Searcher:
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
    close: Iterable[tuple[str, str]] = (),
    common_share: float = 0.05,
    min_overlap: float = 0.5,
) -> dict[str, set[str]]:
    """concept id -> ids of concepts with a similar name (symmetric).

    Similar: the stems the two names share carry at least `min_overlap` of the rarer
    weight of the shorter name (each stem weighs log(N / df); stems in more than
    `common_share` of the names weigh nothing), or one name is an acronym of the other,
    or the pair is in `close` (concepts whose stored vectors are near, from
    `neighbours.vector_pairs`), which catches synonyms that share no word at all.
    """
    stems = {c.id: _stems(c) for c in concepts}
    df = Counter(w for ws in stems.values() for w in ws)
    total = max(1, len(concepts))
    weight = {
        w: (0.0 if n > max(3, total * common_share) else math.log(1 + total / n))
        for w, n in df.items()
    }
    edges: dict[str, set[str]] = {}

    def link(a: str, b: str) -> None:
        if a != b and a in stems and b in stems:
            edges.setdefault(a, set()).add(b)
            edges.setdefault(b, set()).add(a)

    for item in names:
        mine = {w for w in words(item.name) if w not in STOPWORDS}
        mass = sum(weight.get(w, 0.0) for w in mine)
        for hit in search(item.name, neighbors + 1):
            theirs = stems.get(hit, set())
            shared = sum(weight.get(w, 0.0) for w in mine & theirs)
            other = sum(weight.get(w, 0.0) for w in theirs)
            if shared > 0 and shared >= min_overlap * min(mass, other):
                link(item.concept_id, hit)
    for source, targets in acronym_candidates(names).items():
        for target in targets:
            link(source, target)
    for a, b in close:
        link(a, b)
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


def pack(units: Sequence[list[str]], cost: Mapping[str, int], budget: int) -> list[list[int]]:
    """First-fit decreasing: unit indexes per block, each block's names within `budget`."""
    blocks: list[tuple[int, list[int], set[str]]] = []
    order = sorted(range(len(units)), key=lambda i: -sum(cost.get(c, 0) for c in units[i]))
    for index in order:
        unit = units[index]
        for slot, (used, members, ids) in enumerate(blocks):
            size = sum(cost.get(c, 0) for c in unit if c not in ids)
            if used + size <= budget:
                blocks[slot] = (used + size, [*members, index], ids | set(unit))
                break
        else:
            blocks.append((sum(cost.get(c, 0) for c in unit), [index], set(unit)))
    return [members for _, members, _ in blocks]


def name_costs(names: Iterable[NamedConcept]) -> dict[str, int]:
    """Concept id -> tokens its names cost in a prompt."""
    cost: dict[str, int] = {}
    for item in names:
        cost[item.concept_id] = cost.get(item.concept_id, 0) + name_tokens(item.name)
    return cost


def build_units(
    concepts: Sequence[ConceptInfo],
    names: Sequence[NamedConcept],
    search: Searcher,
    *,
    budget: int,
    neighbors: int,
    close: Iterable[tuple[str, str]] = (),
) -> list[list[str]]:
    """Groups of similar concept ids, each fitting `budget` tokens of names.

    Units are what the loop re-asks: each iteration packs the active units into blocks.
    `close` adds pairs known similar by other means than names (near stored vectors).
    """
    cost = {c.id: 0 for c in concepts} | name_costs(names)
    edges = similar_pairs(concepts, names, search, neighbors=neighbors, close=close)
    return _units(edges, cost, budget)
