"""Spec 004's replanning triggers and non-triggers, each on its own (issue 16), and what code
does not let a score say: an "I don't know" never counts as right, mastery never rises on an
answer the evaluator's own words call wrong (issue 12)."""

from __future__ import annotations

from typing import Any

import pytest

from core.flows.tutor import plan as p
from core.flows.tutor.nodes import REDIRECT, evaluation_update
from core.flows.tutor.prompts import EvaluatorAnswer
from core.settings.flows import TutorSettings

SETTINGS = TutorSettings()


def step(n: int, status: str = "pending", asked: int = 0, correct: int = 0) -> dict[str, Any]:
    return {
        "step_id": f"s{n}",
        "title": f"Fracciones {n}",
        "description": "Comparar partes",
        "teaching_approach": "pizzas",
        "success_criteria": f"dice que 1/2 > 1/4 ({n})",
        "status": status,
        "status_info": {"questions_asked": asked, "questions_correct": correct, "attempts": asked},
    }


def state(*steps: dict[str, Any], said: str = "1/2 es mayor") -> dict[str, Any]:
    plan = {"todo_list": list(steps), "metadata": {"plan_version": 1, "replan_count": 0}}
    conversation = [
        {
            "role": "tutor",
            "content": "¿Qué es mayor, 1/2 o 1/4?",
            "kind": "teaching",
            "step_id": steps[0]["step_id"],
        },
        {"role": "student", "content": said},
    ]
    return {"study_plan": plan, "conversation": conversation, "assessment_notes": ""}


def verdict(score: float, trigger: str = "none", *, needed: bool | None = None, **extra: Any):
    data = {
        "own_answer": "1/2",
        "was_off_topic": False,
        "off_topic_response": "",
        "score": score,
        "feedback": "Bien pensado." if score >= 0.7 else "Todavía no.",
        "reasoning": "r",
        "step_status": "in_progress",
        "assessment_note": "n",
        "misconception": "",
        "replan_needed": trigger != "none" if needed is None else needed,
        "replan_trigger": trigger,
        "replan_reason": "",
    }
    return EvaluatorAnswer(**(data | extra))


def decide(current: dict[str, Any], answer: EvaluatorAnswer, **kw: Any) -> dict[str, Any]:
    s = state(current, **kw)
    return evaluation_update(s, current, answer, SETTINGS)


def test_knowledge_gap_after_a_first_wrong_answer_replans() -> None:
    """Main ignored this request (it wanted two failures first)."""
    update = decide(step(1, "in_progress"), verdict(0.1, "knowledge_gap"))
    assert update["replan_needed"] is True
    assert update["replan_reason"] == "the learner lacks a prerequisite"


def test_knowledge_gap_claimed_on_a_right_answer_does_not_replan() -> None:
    assert decide(step(1, "in_progress"), verdict(0.9, "knowledge_gap"))["replan_needed"] is False


def test_a_single_mistake_does_not_replan() -> None:
    for trigger in ("repeated_failure", "approach_not_working"):
        update = decide(step(1, "in_progress"), verdict(0.1, trigger))
        assert update["replan_needed"] is False, trigger


def test_a_second_failure_with_an_approach_not_working_replans() -> None:
    update = decide(step(1, "in_progress", asked=1), verdict(0.1, "approach_not_working"))
    assert update["replan_needed"] is True


def test_three_failures_block_the_step_and_replan_without_being_asked() -> None:
    update = decide(step(1, "in_progress", asked=2), verdict(0.1))
    assert update["study_plan"]["todo_list"][0]["status"] == "blocked"
    assert update["replan_needed"] is True


def test_excelling_replans_when_every_answer_of_the_session_was_right() -> None:
    update = decide(step(1, "in_progress", asked=1, correct=1), verdict(1.0, "excelling"))
    assert update["replan_needed"] is True
    assert update["replan_reason"] == "the learner is excelling and can skip ahead"


@pytest.mark.parametrize(("asked", "correct"), [(0, 0), (1, 0)])
def test_excelling_is_not_believed_too_early_or_after_a_mistake(asked: int, correct: int) -> None:
    current = step(1, "in_progress", asked=asked, correct=correct)
    assert decide(current, verdict(1.0, "excelling"))["replan_needed"] is False


def test_off_topic_never_replans() -> None:
    update = decide(
        step(1, "in_progress", asked=2), verdict(0.0, "knowledge_gap", was_off_topic=True)
    )
    assert update["replan_needed"] is False
    assert update["conversation"][0]["kind"] == "redirect"


def test_normal_progress_does_not_replan() -> None:
    """A request with no trigger (or none that holds) is normal progress."""
    update = decide(step(1, "in_progress", asked=1, correct=1), verdict(0.9, needed=True))
    assert update["replan_needed"] is False


@pytest.mark.parametrize("answer", ["no se, bananas", "No sé", "I don't know", "idk lol", "???"])
def test_an_i_dont_know_never_counts_as_right(answer: str) -> None:
    """Issue 12: mastery rose to 33% on "no se, bananas" scored 0.8 by a tiny model."""
    current = step(1, "in_progress")
    before = p.mastery(state(current)["study_plan"])
    update = decide(current, verdict(0.8), said=answer)
    assert update["last_evaluation"]["correct"] is False
    assert update["mastery"] <= before


def test_a_score_the_evaluators_own_feedback_contradicts_raises_no_mastery() -> None:
    current = step(1, "in_progress")
    answer = verdict(0.8, feedback="Not quite: 1/4 is smaller.", misconception="")
    update = decide(current, answer)
    assert update["last_evaluation"]["correct"] is False
    assert update["mastery"] == 0.0
    named = verdict(0.8, misconception="el denominador mayor da una fracción mayor")
    assert decide(current, named)["last_evaluation"]["correct"] is False


QUESTION = (
    "I'm going to ask you a question. Imagine una pizza cortada en 4 🍕: ¿qué es mayor, 1/2 o 1/4?"
)


def feedback_for(answer: EvaluatorAnswer) -> str:
    s = state(step(1, "in_progress"))
    s["conversation"][0]["content"] = QUESTION
    update = evaluation_update(s, step(1, "in_progress"), answer, SETTINGS)
    return update["conversation"][-1]["content"]


@pytest.mark.parametrize(
    "said",
    [
        "I'm going to ask you a question.",  # the bundled model, walked on the demo vault
        "i'm going to ask you a QUESTION",
        "¿Qué es mayor, 1/2 o 1/4?",
        "1",
        "0.",
        "TUTOR: 42",
    ],
)
def test_feedback_that_only_says_the_question_back_or_has_no_words_is_codes(said: str) -> None:
    assert feedback_for(verdict(0.9, feedback=said)) == "Correct!"
    assert feedback_for(verdict(0.2, feedback=said)) == "Not quite."


@pytest.mark.parametrize(
    "said",
    [
        "Sí: 1/2 es mayor, son dos de las cuatro porciones 🍕.",
        "Right, and the question was a good one: 1/2 is two quarters.",
        "Genau! Die Hälfte ist größer.",
        "对，一半比四分之一大。",
        "Ask yourself a question.",  # a few words shared with the question are no echo
    ],
)
def test_feedback_in_its_own_words_is_kept(said: str) -> None:
    assert feedback_for(verdict(0.9, feedback=said)) == said


def test_a_redirect_that_says_the_question_back_is_codes() -> None:
    off = {"was_off_topic": True, "off_topic_response": "I'm going to ask you a question."}
    assert feedback_for(verdict(0.0, **off)) == REDIRECT
    kept = {"was_off_topic": True, "off_topic_response": "¡Qué buena pregunta! Volvamos a 1/2."}
    assert feedback_for(verdict(0.0, **kept)) == kept["off_topic_response"]
