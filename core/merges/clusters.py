"""Chains of accepted merges (A~B, B~C) become one cluster with one canonical concept.

The canonical is the reviewer's choice when they made one, else the concept with the most
links pointing at it (ties: more aliases, a longer summary, then the title alphabetically).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.merges.catalog import ConceptInfo
from core.merges.reviews import ReviewItem


@dataclass
class Cluster:
    """Concepts that become one note."""

    canonical_id: str
    members: list[str]
    """Every concept id of the cluster, canonical included, in a stable order."""
    items: list[ReviewItem] = field(default_factory=list)
    """The merges that joined it."""
    new_title: str | None = None
    """The title the reviewer gave the canonical, if they renamed it."""

    @property
    def variants(self) -> list[str]:
        return [m for m in self.members if m != self.canonical_id]

    def title(self, concepts: Mapping[str, ConceptInfo]) -> str:
        """The canonical's title after the merge."""
        return self.new_title or concepts[self.canonical_id].title


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def default_canonical(members: Iterable[str], concepts: Mapping[str, ConceptInfo]) -> str:
    """The member with the most links (then more aliases, longer summary, title)."""

    def rank(cid: str) -> tuple[Any, ...]:
        c = concepts.get(cid)
        if c is None:
            return (1, 0, 0, 0, cid)
        return (0, -c.links, -len(c.aliases), -len(c.summary), c.title.casefold())

    return min(members, key=rank)


def build_clusters(
    items: Iterable[ReviewItem],
    concepts: Mapping[str, ConceptInfo],
    choices: Mapping[str, str | None] | None = None,
) -> list[Cluster]:
    """Clusters of the items not rejected; items whose concepts vanished are skipped."""
    uf = _UnionFind()
    kept = [
        i for i in items if i.status != "rejected" and i.a_id in concepts and i.b_id in concepts
    ]
    for item in kept:
        uf.union(item.a_id, item.b_id)
    groups: dict[str, list[str]] = {}
    for item in kept:
        for cid in (item.a_id, item.b_id):
            members = groups.setdefault(uf.find(cid), [])
            if cid not in members:
                members.append(cid)
    choices = choices or {}
    clusters = []
    for root, members in groups.items():
        chosen = [m for m in members if m in choices]
        canonical = chosen[0] if chosen else default_canonical(members, concepts)
        ordered = [
            canonical,
            *sorted(
                (m for m in members if m != canonical), key=lambda m: concepts[m].title.casefold()
            ),
        ]
        cluster_items = [i for i in kept if uf.find(i.a_id) == root]
        clusters.append(Cluster(canonical, ordered, cluster_items, choices.get(canonical)))
    clusters.sort(key=lambda c: concepts[c.canonical_id].title.casefold())
    return clusters


@dataclass(frozen=True)
class ClusterEdge:
    """One member of a cluster under the concept its merge joined it to."""

    parent_id: str
    child_id: str
    item: ReviewItem
    """The merge that joined them: its reason and origin are the edge's evidence."""


def cluster_layout(cluster: Cluster) -> tuple[list[ClusterEdge], list[ReviewItem]]:
    """The cluster as a tree rooted at its canonical: breadth first over the merges, each
    member under the first concept a merge joins it to (a chain A~B, B~C puts C under B).
    Merges that would close a cycle (A~B, B~C and A~C) are returned apart: they are evidence
    too, for a member already placed."""
    placed = {cluster.canonical_id}
    queue = [cluster.canonical_id]
    edges: list[ClusterEdge] = []
    used: set[str] = set()
    while queue:
        parent = queue.pop(0)
        for item in cluster.items:
            if item.key in used or parent not in (item.a_id, item.b_id):
                continue
            child = item.b_id if item.a_id == parent else item.a_id
            if child in placed:
                continue
            used.add(item.key)
            placed.add(child)
            queue.append(child)
            edges.append(ClusterEdge(parent, child, item))
    return edges, [item for item in cluster.items if item.key not in used]
