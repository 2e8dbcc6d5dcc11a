"""The lesson benchmarks run the flow's own functions: they must keep up with them.

The cascade benchmark's scripted judges must answer as the judge node accepts: when every
answer was rejected as degenerate (one rationale copied into every criterion), every judge call
was re-asked and the benchmark reported the cascade spending 2.5 times the full panel. The
self-review benchmark calls the self-review node's helpers; it broke when they changed."""

from __future__ import annotations

from bench.lesson_cascade import judge_answer
from bench.lesson_selfreview import Oracle, review
from core.evaluation import load_criteria
from core.evaluation.answer import EvaluationAnswer, answer_problems, degenerate_problems
from core.flows.lesson.heuristics import HeuristicReport
from core.settings.flows import LessonSettings
from local_llm.testing import scripted_client
from tests.flows.lesson.lesson_corpus import lesson_by_file


def test_the_scripted_judge_gives_an_answer_the_judge_node_accepts() -> None:
    criteria = load_criteria("lesson").criteria
    for score in (0.2, 0.7, 1.3):
        answer = EvaluationAnswer.model_validate(judge_answer(score))
        assert answer_problems(answer, criteria) == []
        assert degenerate_problems(answer, "A lesson about anything.") == []


async def test_the_self_review_benchmark_reviews_as_the_flow_does() -> None:
    oracle = Oracle()
    llm = scripted_client(oracle)
    empty = HeuristicReport(checks=[])
    for file, caught in (
        ("pt/pt-018-concordancia-verbal.md", True),
        ("zh/zh-002-guanghe-zuoyong.md", False),
    ):
        oracle.lesson = lesson_by_file(file)
        hit, decision, seconds = await review(oracle.lesson, llm, empty, LessonSettings())
        assert (hit, decision != "PASS") == (caught, caught) and seconds >= 0, (file, decision)
