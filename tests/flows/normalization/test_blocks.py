"""Similar-name units and their packing into blocks under a token budget."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.flows.normalization.blocks import build_units, name_costs, pack, similar_pairs
from core.flows.normalization.catalog import ConceptInfo, concept_names
from core.flows.normalization.neighbours import VECTOR_SIMILARITY, close_pairs, vector_pairs
from core.store import Store
from tests.flows.normalization.script import propose, weak_when
from vault.embedding import pack as pack_vector

TITLES = [
    "Memory consolidation",
    "Consolidation of memory",
    "Zone of proximal development",
    "ZPD",
    "Spaced repetition",
    "Interleaving",
    "Working memory",
    "Cognitive load",
    "Flow state",
]


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


# --- near stored vectors: synonyms that share no word ----------------------------------------

MODEL = "embed-test"
WORKING, STORE = "c6", "c9"  # "Working memory" / "Short-term store": no shared stem
SPACED, DISTRIBUTED = "c4", "c10"  # "Spaced repetition" / "Distributed practice"


def synonym_concepts() -> list[ConceptInfo]:
    return concepts() + [
        ConceptInfo(id=STORE, title="Short-term store"),
        ConceptInfo(id=DISTRIBUTED, title="Distributed practice"),
    ]


def unit_vector(rng: np.random.Generator, dim: int) -> np.ndarray:
    v = rng.standard_normal(dim)
    return v / np.linalg.norm(v)


def at_cosine(base: np.ndarray, other: np.ndarray, cosine: float) -> np.ndarray:
    """A unit vector at exactly `cosine` from unit `base` (in the plane of base and other)."""
    ortho = other - (other @ base) * base
    ortho /= np.linalg.norm(ortho)
    return cosine * base + math.sqrt(1 - cosine**2) * ortho


def store_vectors(store: Store, vectors: dict[str, np.ndarray], model: str = MODEL) -> None:
    rows = [(cid, model, len(v), pack_vector(v.tolist()), "h") for cid, v in vectors.items()]
    store.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?, ?)", rows)


def planted_vectors(close: float, far: float, dim: int = 32) -> dict[str, np.ndarray]:
    """Random vectors; Short-term store at `close` from Working memory, Distributed practice
    at `far` from Spaced repetition."""
    rng = np.random.default_rng(3)
    vectors = {c.id: unit_vector(rng, dim) for c in synonym_concepts()}
    vectors[STORE] = at_cosine(vectors[WORKING], unit_vector(rng, dim), close)
    vectors[DISTRIBUTED] = at_cosine(vectors[SPACED], unit_vector(rng, dim), far)
    return vectors


def units_with(store: Store, model: str) -> list[list[str]]:
    items = synonym_concepts()
    close = vector_pairs(store, model, k=5)
    units = build_units(
        items, concept_names(items), searcher(items), budget=200, neighbors=5, close=close
    )
    return sorted(map(sorted, units))


def test_close_vectors_put_synonyms_without_a_shared_stem_in_one_unit(tmp_path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    store_vectors(store, planted_vectors(close=0.9, far=0.8))
    units = units_with(store, MODEL)
    assert sorted([STORE, WORKING]) in units  # cosine 0.9 >= VECTOR_SIMILARITY
    assert not any({SPACED, DISTRIBUTED} <= set(u) for u in units)  # 0.8: too far
    assert VECTOR_SIMILARITY == 0.85


def test_vectors_far_apart_link_nothing(tmp_path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    store_vectors(store, planted_vectors(close=0.2, far=-0.5))
    lexical = [["c0", "c1"], ["c2", "c3"]]
    assert units_with(store, MODEL) == lexical
    # the same names with the synonym's vector close: the one extra pair is linked
    store.execute("DELETE FROM embeddings")
    store_vectors(store, planted_vectors(close=0.95, far=-0.5))
    assert units_with(store, MODEL) == sorted([*lexical, sorted([STORE, WORKING])])


def test_without_vectors_for_the_model_units_are_the_lexical_ones(tmp_path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    items = synonym_concepts()
    lexical = sorted(
        map(
            sorted,
            build_units(items, concept_names(items), searcher(items), budget=200, neighbors=5),
        )
    )
    assert units_with(store, MODEL) == lexical  # no vectors at all
    store_vectors(store, planted_vectors(close=0.95, far=0.95), model="old-model")
    assert units_with(store, MODEL) == lexical  # vectors of another model do not count
    assert units_with(store, "") == lexical  # no embedding model configured
    assert units_with(store, "old-model") != lexical  # ...but they would for that model


def test_chunked_similarity_finds_pairs_across_chunks_and_keeps_k_nearest() -> None:
    rng = np.random.default_rng(5)
    dim, count = 16, 40
    base = np.stack([unit_vector(rng, dim) for _ in range(count)])
    partner = np.stack([at_cosine(b, unit_vector(rng, dim), 0.97) for b in base])
    unit = np.concatenate([base, partner])  # i and i + 40 are synonyms, in different chunks
    ids = [f"a{i:02d}" for i in range(count)] + [f"b{i:02d}" for i in range(count)]
    chunked = close_pairs(ids, unit.astype(np.float32), k=3, chunk=7)
    assert chunked == close_pairs(ids, unit.astype(np.float32), k=3, chunk=10_000)
    assert {(f"a{i:02d}", f"b{i:02d}") for i in range(count)} <= chunked
    crowd = np.stack([at_cosine(base[0], unit_vector(rng, dim), 0.99) for _ in range(8)])
    crowd_ids = [f"x{i}" for i in range(9)]
    pairs = close_pairs(crowd_ids, np.concatenate([base[:1], crowd]).astype(np.float32), k=2)
    # all 36 pairs of the crowd are above the threshold; each name keeps only its 2 nearest
    assert 9 <= len(pairs) <= 9 * 2 < 36


@pytest.mark.parametrize(("similarity", "found"), [(0.85, True), (0.95, False)])
async def test_the_flow_proposes_a_synonym_pair_found_only_by_vectors(
    harness, similarity: float, found: bool
) -> None:
    """Vectors at cosine 0.9 meet in a block under the default setting, not under 0.95."""
    h = harness(
        propose(("Deep Work", "Metacognición")),
        weak_when(),
        strategy="blocks",
        vector_similarity=similarity,
    )
    h.context.vault.index.sync_files()
    ids = {r[1]: r[0] for r in h.store.query("SELECT entity_id, title FROM concepts")}
    rng = np.random.default_rng(9)
    vectors = {cid: unit_vector(rng, 32) for cid in ids.values()}
    vectors[ids["Deep Work"]] = at_cosine(vectors[ids["Metacognición"]], unit_vector(rng, 32), 0.9)
    store_vectors(h.store, vectors)
    h.context.vault.embed_model = MODEL
    state = await h.stream()
    keys = {tuple(sorted((m["a_name"], m["b_name"]))) for m in state["all_merges"].values()}
    assert (("Deep Work", "Metacognición") in keys) is found
