"""Chains of merges become one cluster with one canonical (most links unless chosen)."""

from __future__ import annotations

from core.merges.catalog import ConceptInfo
from core.merges.clusters import build_clusters, cluster_layout
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


def edges(cluster) -> list[tuple[str, str]]:
    placed, extra = cluster_layout(cluster)
    return [(e.parent_id, e.child_id) for e in placed] + [("extra", i.key) for i in extra]


def test_a_cluster_is_laid_out_as_a_tree_from_its_canonical() -> None:
    # a chain d~a, a~c, c~f around the canonical b (most links) joined through a~b
    chain = [item("d", "a"), item("a", "c"), item("a", "b"), item("c", "f")]
    [cluster] = build_clusters(chain, CONCEPTS)
    assert cluster.canonical_id == "b"
    assert edges(cluster) == [("b", "a"), ("a", "d"), ("a", "c"), ("c", "f")]
    placed, _extra = cluster_layout(cluster)
    assert [e.item.key for e in placed] == ["a|b", "a|d", "a|c", "c|f"]  # each edge's merge


def test_a_merge_closing_a_cycle_is_kept_as_extra_evidence() -> None:
    [cluster] = build_clusters([item("a", "b"), item("b", "c"), item("a", "c")], CONCEPTS)
    assert edges(cluster) == [("b", "a"), ("b", "c"), ("extra", "a|c")]
