"""Accumulation in code (spec 000, 3): order-insensitive merge keys, weak filtering, the
`new_unique_merges` trend and the convergence rule.

A merge is a plain dict (it lives in the checkpointed state):
`{"key", "a_id", "b_id", "a_name", "b_name", "reason", "origin"}` with origin `code` (a
deterministic variant) or `model`. A weak merge adds `explanation` and its origin is
`evaluator` or `user`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Required, TypedDict


class Merge(TypedDict, total=False):
    """A merge as the state keeps it (see the module docstring); a weak merge read back from
    the store also has the `run_id` that found it."""

    key: Required[str]
    a_id: Required[str]
    b_id: Required[str]
    a_name: Required[str]
    b_name: Required[str]
    reason: str
    origin: str
    explanation: str
    run_id: str


def merge_key(a_id: str, b_id: str) -> str:
    """The identity of a merge of two concepts, whichever way round it was proposed."""
    first, second = sorted((a_id, b_id))
    return f"{first}|{second}"


def make_merge(
    a_id: str, b_id: str, a_name: str, b_name: str, reason: str = "", origin: str = "model"
) -> Merge:
    """A merge dict with its key."""
    return {
        "key": merge_key(a_id, b_id),
        "a_id": a_id,
        "b_id": b_id,
        "a_name": a_name,
        "b_name": b_name,
        "reason": reason,
        "origin": origin,
    }


@dataclass(frozen=True)
class Accumulated:
    """The result of adding one validated batch."""

    all_merges: dict[str, Merge]
    """Every accepted merge so far, by key (insertion order = discovery order)."""
    latest: list[Merge]
    """The merges of this batch that were new."""

    @property
    def new_unique(self) -> int:
        return len(self.latest)


def accumulate(
    all_merges: Mapping[str, Merge], batch: Iterable[Merge], weak_keys: Iterable[str]
) -> Accumulated:
    """accepted = batch minus every weak key ever seen; new = accepted keys not seen before."""
    weak = set(weak_keys)
    merged = dict(all_merges)
    latest: list[Merge] = []
    for merge in batch:
        key = merge.get("key") or merge_key(merge["a_id"], merge["b_id"])
        if merge["a_id"] == merge["b_id"] or key in weak or key in merged:
            continue
        merged[key] = {**merge, "key": key}
        latest.append(merged[key])
    return Accumulated(merged, latest)


def should_stop(
    trend: Sequence[int], iteration: int, *, max_iterations: int, min_new: int, patience: int
) -> bool:
    """Stop after `max_iterations`, or when the last `patience` iterations each found fewer
    than `min_new` new unique merges (spec: < 3 for 2 consecutive iterations, or 8 iterations).
    """
    if iteration >= max_iterations:
        return True
    recent = list(trend)[-patience:]
    return len(recent) == patience and all(count < min_new for count in recent)


def format_weak(weak: Iterable[Merge]) -> str:
    """The avoid list as the generator reads it, one weak merge a line."""
    lines = []
    for item in weak:
        why = item.get("reason") or "weak"
        lines.append(f'- "{item["a_name"]}" + "{item["b_name"]}" ({why})')
    return "\n".join(lines) if lines else "(none)"
