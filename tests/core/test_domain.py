"""Relations are bidirectional: A->B always comes with B->A of the inverse type."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.domain import RELATION_MAP, Relation, RelationType, with_inverses

PAIRS = {
    "GENERALIZES": "SPECIFIC_OF",
    "PART_OF": "HAS_PART",
    "SUPPORTS": "SUPPORTED_BY",
}


def test_nine_types_and_the_inverse_map():
    assert len(RelationType) == 9 and set(RELATION_MAP) == set(RelationType)
    for a, b in PAIRS.items():
        assert RELATION_MAP[RelationType(a)] == RelationType(b)
        assert RELATION_MAP[RelationType(b)] == RelationType(a)
    for symmetric in ("OPPOSES", "SIMILAR_TO", "RELATES_TO"):
        assert RELATION_MAP[RelationType(symmetric)] == RelationType(symmetric)


ids = st.sampled_from(["a", "b", "c", "d"])
relations = st.builds(
    Relation, source_id=ids, type=st.sampled_from(list(RelationType)), target_id=ids
)


@given(st.lists(relations, max_size=12))
def test_with_inverses_is_closed_under_inversion(edges):
    result = with_inverses(edges)
    keys = [edge.key for edge in result]
    assert len(keys) == len(set(keys))
    assert all(edge.source_id != edge.target_id for edge in result)
    for edge in result:
        assert edge.inverse().key in set(keys)
    for edge in edges:
        if edge.source_id != edge.target_id:
            assert edge.key in set(keys)
