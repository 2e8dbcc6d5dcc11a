"""Similar-name units and their packing into blocks under a token budget."""

from __future__ import annotations

from core.flows.normalization.blocks import build_units, name_costs, pack, similar_pairs
from core.flows.normalization.catalog import ConceptInfo, concept_names

TITLES = [
    "Memory consolidation", "Consolidation of memory", "Zone of proximal development", "ZPD",
    "Spaced repetition", "Interleaving", "Working memory", "Cognitive load", "Flow state",
]  # fmt: skip


def concepts() -> list[ConceptInfo]:
    return [ConceptInfo(id=f"c{i}", title=t) for i, t in enumerate(TITLES)]


def searcher(items: list[ConceptInfo]):
    """Every concept sharing a lower-cased word with the query (like FTS's OR query)."""

    def search(query: str, k: int) -> list[str]:
        words = set(query.lower().split())
        return [c.id for c in items if words & set(c.title.lower().split())][:k]

    return search


def test_similar_pairs_need_weighty_shared_stems_or_an_acronym() -> None:
    items = concepts()
    edges = similar_pairs(items, concept_names(items), searcher(items), neighbors=5)
    assert edges["c0"] == {"c1"} and edges["c2"] == {"c3"}
    # "Working memory" shares only "memory" with a two-word name of other weighty words
    assert "c6" not in edges.get("c0", set())
    assert "c4" not in edges and "c8" not in edges  # nothing similar: in no unit


def test_units_pack_into_blocks_within_the_budget() -> None:
    items = concepts()
    names = concept_names(items)
    units = build_units(items, names, searcher(items), budget=200, neighbors=5)
    assert sorted(map(sorted, units)) == [["c0", "c1"], ["c2", "c3"]]
    cost = name_costs(names)
    blocks = pack(units, cost, budget=12)
    assert len(blocks) == 2  # each unit alone fits 12 tokens, both together do not
    assert pack(units, cost, budget=200) == [[0, 1]] or pack(units, cost, budget=200) == [[1, 0]]
