"""The text rendering of an evaluation."""

from __future__ import annotations

from core.evaluation import CriterionResult, EvaluationResult, Issue
from core.evaluation.report import render_text, score_bar


def test_score_bar_fills_to_the_score_and_marks_the_threshold() -> None:
    assert score_bar(0.5, None, width=10) == "[#####-----]"
    assert score_bar(0.2, 0.7, width=10) == "[##-----|--]"
    assert score_bar(1.0, 1.0, width=4) == "[###|]"


def test_render_text_shows_verdict_criteria_and_remarks() -> None:
    result = EvaluationResult(
        passed=False,
        overall_score=0.55,
        passing_threshold=0.7,
        criteria_id="lesson",
        criteria_version="1.0",
        criteria=[
            CriterionResult(
                id="accuracy",
                name="Accuracy",
                score=0.3,
                weight=1,
                passing_threshold=0.6,
                is_critical=True,
                passed=False,
                rationale="wrong date",
                issues=[Issue(what="1066 is wrong", where="intro")],
            )
        ],
        suggestions=["fix the date"],
        feedback="needs work",
    )
    text = render_text(result.model_dump())
    assert text.startswith("NOT PASSED  overall 0.55 (threshold 0.70)  rubric lesson@1.0")
    assert "Accuracy [######------|-------] 0.30/0.60 LOW  critical" in text
    assert "- 1066 is wrong (intro)" in text and "  - fix the date" in text
    assert text.endswith("Feedback: needs work")
