"""The cascade benchmark's scripted judges must answer as the judge node accepts: when every
answer was rejected as degenerate (one rationale copied into every criterion), every judge call
was re-asked and the benchmark reported the cascade spending 2.5 times the full panel."""

from __future__ import annotations

from bench.lesson_cascade import judge_answer
from core.evaluation import load_criteria
from core.evaluation.answer import EvaluationAnswer, answer_problems, degenerate_problems


def test_the_scripted_judge_gives_an_answer_the_judge_node_accepts() -> None:
    criteria = load_criteria("lesson").criteria
    for score in (0.2, 0.7, 1.3):
        answer = EvaluationAnswer.model_validate(judge_answer(score))
        assert answer_problems(answer, criteria) == []
        assert degenerate_problems(answer, "A lesson about anything.") == []
