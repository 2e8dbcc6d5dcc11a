"""The arithmetic of evaluations: weighted mean, thresholds, critical failures (property tests)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.evaluation import EvaluationCriteria, ScoringError, score_criteria, weighted_mean

unit = st.floats(min_value=0, max_value=1, allow_nan=False)


def rubric(
    weights: list[float], thresholds: list[float], critical: list[bool]
) -> EvaluationCriteria:
    total = sum(weights)
    bands = {b: b for b in ("excellent", "good", "adequate", "poor", "inadequate")}
    return EvaluationCriteria.model_validate(
        {
            "id": "r",
            "name": "R",
            "version": "1",
            "criteria": [
                {
                    "id": f"c{i}",
                    "name": f"C{i}",
                    "description": "d",
                    "weight": w / total,
                    "is_critical": crit,
                    "passing_threshold": t,
                    "scoring_guidelines": bands,
                }
                for i, (w, t, crit) in enumerate(zip(weights, thresholds, critical, strict=True))
            ],
        }
    )


@st.composite
def cases(draw):
    n = draw(st.integers(min_value=1, max_value=8))
    weights = draw(st.lists(st.floats(min_value=0.05, max_value=1), min_size=n, max_size=n))
    thresholds = draw(st.lists(unit, min_size=n, max_size=n))
    critical = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    scores = draw(st.lists(unit, min_size=n, max_size=n))
    threshold = draw(unit)
    return rubric(weights, thresholds, critical), scores, threshold


@given(cases())
@settings(max_examples=200, deadline=None)
def test_overall_is_the_weighted_mean_and_lies_between_min_and_max(case) -> None:
    criteria, scores, threshold = case
    verdict = score_criteria(
        criteria, {c.id: s for c, s in zip(criteria.criteria, scores, strict=True)}, threshold
    )
    expected = sum(c.weight * s for c, s in zip(criteria.criteria, scores, strict=True)) / sum(
        c.weight for c in criteria.criteria
    )
    assert math.isclose(verdict.overall, expected, abs_tol=1e-9)
    assert min(scores) - 1e-9 <= verdict.overall <= max(scores) + 1e-9


@given(cases())
@settings(max_examples=200, deadline=None)
def test_passed_iff_overall_reaches_threshold_and_no_critical_fails(case) -> None:
    criteria, scores, threshold = case
    by_id = {c.id: s for c, s in zip(criteria.criteria, scores, strict=True)}
    verdict = score_criteria(criteria, by_id, threshold)
    critical_failed = [
        c.id for c in criteria.criteria if c.is_critical and by_id[c.id] < c.passing_threshold
    ]
    assert verdict.failed_critical == critical_failed
    assert verdict.passed == (verdict.overall >= threshold - 1e-9 and not critical_failed)
    for c in criteria.criteria:
        assert verdict.criterion_passed[c.id] == (by_id[c.id] >= c.passing_threshold)


@given(cases(), st.integers(min_value=0, max_value=7), unit)
@settings(max_examples=200, deadline=None)
def test_raising_one_score_never_lowers_the_overall(case, index, bump) -> None:
    criteria, scores, threshold = case
    i = index % len(scores)
    higher = list(scores)
    higher[i] = max(scores[i], bump)
    ids = criteria.ids
    low = score_criteria(criteria, dict(zip(ids, scores, strict=True)), threshold)
    high = score_criteria(criteria, dict(zip(ids, higher, strict=True)), threshold)
    assert high.overall >= low.overall - 1e-12


@given(st.lists(unit, min_size=1, max_size=10), st.floats(min_value=0.01, max_value=100))
def test_scaling_all_weights_changes_nothing(scores, factor) -> None:
    weights = [1.0] * len(scores)
    assert math.isclose(
        weighted_mean(scores, weights),
        weighted_mean(scores, [w * factor for w in weights]),
        abs_tol=1e-12,
    )


@given(unit)
def test_equal_scores_at_the_threshold_pass(value) -> None:
    criteria = rubric([0.3, 0.3, 0.4], [0, 0, 0], [False, False, False])
    verdict = score_criteria(criteria, dict.fromkeys(criteria.ids, value), value)
    assert verdict.passed


def test_a_critical_failure_fails_despite_a_high_overall() -> None:
    criteria = rubric([0.1, 0.9], [0.5, 0.5], [True, False])
    verdict = score_criteria(criteria, {"c0": 0.2, "c1": 1.0}, 0.7)
    assert verdict.overall > 0.9 and not verdict.passed and verdict.failed_critical == ["c0"]


@pytest.mark.parametrize(
    "scores",
    [
        {"c0": 0.5},
        {"c0": 0.5, "c1": 0.5, "zz": 0.1},
        {"c0": 1.5, "c1": 0.5},
        {"c0": float("nan"), "c1": 0.5},
    ],
)
def test_scores_that_do_not_fit_the_rubric_are_errors(scores) -> None:
    criteria = rubric([0.5, 0.5], [0.5, 0.5], [False, False])
    with pytest.raises(ScoringError):
        score_criteria(criteria, scores, 0.7)


def test_weighted_mean_rejects_empty_and_zero_weights() -> None:
    with pytest.raises(ScoringError):
        weighted_mean([], [])
    with pytest.raises(ScoringError):
        weighted_mean([0.5], [0.0])
