"""Scoring is code: weighted mean, per-criterion thresholds, critical failures, the verdict."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.evaluation.loader import EvaluationCriteria

EPSILON = 1e-9
"""Comparisons with thresholds tolerate float rounding of the weighted mean."""


class ScoringError(ValueError):
    """Scores that cannot be combined (missing, extra, out of range, or no weight)."""


def weighted_mean(scores: Sequence[float], weights: Sequence[float]) -> float:
    """sum(w*s) / sum(w), clamped into [0, 1] against float rounding.

    Dividing by the actual sum normalizes weights that sum to 1 only approximately.
    """
    if len(scores) != len(weights) or not scores:
        raise ScoringError("scores and weights must be non-empty and of equal length")
    total = math.fsum(weights)
    if total <= 0:
        raise ScoringError("weights must sum to more than 0")
    value = math.fsum(s * w for s, w in zip(scores, weights, strict=True)) / total
    return min(1.0, max(0.0, value))


@dataclass(frozen=True)
class Verdict:
    """The arithmetic outcome of one evaluation."""

    overall: float
    """Weighted mean of the scores."""
    passed: bool
    """overall >= threshold and no critical criterion below its own threshold."""
    threshold: float
    """The overall threshold applied."""
    criterion_passed: dict[str, bool]
    """Per criterion: score >= its threshold."""
    failed_critical: list[str]
    """Critical criteria below their threshold, in rubric order."""


def score_criteria(
    criteria: EvaluationCriteria, scores: Mapping[str, float], threshold: float
) -> Verdict:
    """Combine per-criterion scores into the verdict.

    Every criterion of the rubric must have exactly one score in 0..1; anything else is a
    `ScoringError` (the node turns it into status `error`).
    """
    missing = [cid for cid in criteria.ids if cid not in scores]
    extra = [cid for cid in scores if cid not in set(criteria.ids)]
    if missing or extra:
        raise ScoringError(f"scores do not match the rubric: missing {missing}, unknown {extra}")
    for cid, value in scores.items():
        if not (isinstance(value, int | float) and 0.0 <= value <= 1.0) or math.isnan(value):
            raise ScoringError(f"score of {cid!r} is {value!r}; scores must lie in 0..1")
    if not 0.0 <= threshold <= 1.0:
        raise ScoringError(f"threshold {threshold!r} outside 0..1")
    ordered = [float(scores[c.id]) for c in criteria.criteria]
    overall = weighted_mean(ordered, [c.weight for c in criteria.criteria])
    passed_by_id = {c.id: scores[c.id] >= c.passing_threshold for c in criteria.criteria}
    failed_critical = [c.id for c in criteria.criteria if c.is_critical and not passed_by_id[c.id]]
    passed = overall >= threshold - EPSILON and not failed_critical
    return Verdict(overall, passed, threshold, passed_by_id, failed_critical)
