"""Chains of merges become one cluster with one canonical (most links unless chosen)."""

from __future__ import annotations

from core.merges.catalog import ConceptInfo
from core.merges.clusters import build_clusters
from core.merges.reviews import ReviewItem


def item(a: str, b: str, status: str = "accepted") -> ReviewItem:
    return ReviewItem(f"{min(a, b)}|{max(a, b)}", a, b, a.upper(), b.upper(), "", "model", status)


CONCEPTS = {
    cid: ConceptInfo(cid, cid.upper(), f"08 - Ideas/{cid.upper()}.md", links=links)
    for cid, links in {"a": 1, "b": 5, "c": 2, "d": 0, "e": 3, "f": 0}.items()
}


def test_chains_become_one_cluster_with_the_most_linked_canonical() -> None:
    clusters = build_clusters([item("a", "b"), item("b", "c"), item("e", "f")], CONCEPTS)
    assert [(c.canonical_id, c.members) for c in clusters] == [
        ("b", ["b", "a", "c"]),
        ("e", ["e", "f"]),
    ]
    assert clusters[0].variants == ["a", "c"] and len(clusters[0].items) == 2


def test_rejected_items_break_chains_and_choices_override_the_canonical() -> None:
    items = [item("a", "b"), item("b", "c", "rejected"), item("c", "d", "pending")]
    clusters = build_clusters(items, CONCEPTS, {"d": "Dee"})
    assert [(c.canonical_id, sorted(c.members)) for c in clusters] == [
        ("b", ["a", "b"]),
        ("d", ["c", "d"]),
    ]
    assert clusters[1].title(CONCEPTS) == "Dee" and clusters[0].title(CONCEPTS) == "B"


def test_items_of_vanished_concepts_are_skipped() -> None:
    assert build_clusters([item("a", "zz")], CONCEPTS) == []
