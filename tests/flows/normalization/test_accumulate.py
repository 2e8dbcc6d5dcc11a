"""Merge keys, accumulation and the convergence rule (spec 000) — all code, no model."""

from __future__ import annotations

import pytest

from core.flows.normalization.accumulate import accumulate, make_merge, merge_key, should_stop


def test_merge_keys_are_order_insensitive() -> None:
    assert merge_key("a", "b") == merge_key("b", "a") == "a|b"
    assert make_merge("y", "x", "Y", "X")["key"] == make_merge("x", "y", "X", "Y")["key"]


def test_accumulate_counts_only_new_unique_non_weak_merges() -> None:
    first = accumulate({}, [make_merge("a", "b", "A", "B"), make_merge("b", "a", "B", "A")], [])
    assert first.new_unique == 1 and list(first.all_merges) == ["a|b"]
    second = accumulate(
        first.all_merges,
        [
            make_merge("a", "b", "A", "B"),
            make_merge("c", "d", "C", "D"),
            make_merge("e", "f", "E", "F"),
            make_merge("g", "g", "G", "G2"),
        ],
        weak_keys=["e|f"],
    )
    assert [m["key"] for m in second.latest] == ["c|d"]
    assert set(second.all_merges) == {"a|b", "c|d"}


# trend, iteration -> stop? with the spec's settings (min 3 new, patience 2, max 8)
CONVERGENCE = [
    ([], 0, False),
    ([5], 1, False),
    ([2], 1, False),  # one low iteration is not enough
    ([5, 2], 2, False),
    ([5, 2, 1], 3, True),  # two consecutive < 3
    ([2, 0], 2, True),
    ([0, 3], 2, False),  # 3 is not < 3
    ([1, 4, 2], 3, False),  # not consecutive
    ([1, 4, 2, 2], 4, True),
    ([9, 9, 9, 9, 9, 9, 9], 7, False),
    ([9, 9, 9, 9, 9, 9, 9, 9], 8, True),  # max_iterations
]


@pytest.mark.parametrize(("trend", "iteration", "stop"), CONVERGENCE)
def test_convergence_rule_as_a_table_of_trends(trend, iteration, stop) -> None:
    assert should_stop(trend, iteration, max_iterations=8, min_new=3, patience=2) is stop


def test_convergence_settings_change_the_rule() -> None:
    assert not should_stop([0, 0], 2, max_iterations=8, min_new=3, patience=3)
    assert should_stop([0, 0, 0], 3, max_iterations=8, min_new=3, patience=3)
    assert should_stop([4, 4], 2, max_iterations=8, min_new=5, patience=2)
    assert should_stop([50], 1, max_iterations=1, min_new=3, patience=2)
