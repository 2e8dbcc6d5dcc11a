"""What code decides about one evaluation of the tutor: whether the answer counts as right,
and whether the evaluator's request for a new plan holds (spec 004's triggers and
non-triggers). The evaluator model proposes; these rules dispose."""

from __future__ import annotations

from core.degenerate import fold, said_before
from core.flows.tutor import plan as p
from core.flows.tutor.hints import readable
from core.flows.tutor.prompts import EvaluatorAnswer
from core.flows.tutor.state import (
    LastEvaluationData,
    MessageData,
    PlanStepData,
    SimplifiedState,
    StudyPlanData,
)


def decide_replan(
    answer: EvaluatorAnswer, step: PlanStepData, plan: StudyPlanData, correct: bool
) -> tuple[bool, str | None]:
    """Spec 004's triggers and non-triggers, enforced in code.

    Triggers: the step is blocked (3+ failures); a knowledge gap the evaluator sees in a wrong
    answer (even the first); excelling (every answer of the session right, two or more); the
    same idea failed again, or an approach that is not working (two or more failures on the
    step). Non-triggers: an off-topic answer, a single mistake, normal progress (a request
    with no trigger that holds)."""
    if answer.was_off_topic:
        return False, None
    if step.get("status") == "blocked":
        reason = answer.replan_reason or f"{p.failures(step)} failed attempts on {step['title']!r}"
        return True, reason
    trigger: str = answer.replan_trigger
    if trigger == "none" and answer.replan_needed:
        trigger = "unspecified"
    asked = sum(s["status_info"]["questions_asked"] for s in p.steps(plan))
    right = sum(s["status_info"]["questions_correct"] for s in p.steps(plan))
    excelling = correct and asked >= 2 and right == asked
    holds = {
        "none": False,
        "knowledge_gap": not correct,
        "excelling": excelling,
        "repeated_failure": p.failures(step) >= 2,
        "approach_not_working": p.failures(step) >= 2,
        "unspecified": p.failures(step) >= 2,
    }[trigger]
    if not holds:
        return False, None
    return True, answer.replan_reason or TRIGGER_REASONS.get(trigger, "a new plan was asked for")


TRIGGER_REASONS = {
    "knowledge_gap": "the learner lacks a prerequisite",
    "excelling": "the learner is excelling and can skip ahead",
    "repeated_failure": "the learner keeps failing the same idea",
    "approach_not_working": "the teaching approach is not working",
}
NON_ANSWERS = (
    "no se",
    "no lo se",
    "ni idea",
    "no idea",
    "i don t know",
    "i dont know",
    "dont know",
    "idk",
    "no tengo idea",
    "je ne sais pas",
    "weiss nicht",
)
NEGATIVE_OPENINGS = (
    "not quite",
    "incorrect",
    "wrong",
    "that s not",
    "that is not",
    "no es correct",
    "incorrecto",
    "no es asi",
    "no exactamente",
    "todavia no",
    "aun no",
    "pas tout a fait",
)


def judged_correct(answer: EvaluatorAnswer, student: str, pass_score: float) -> tuple[bool, str]:
    """Whether the answer counts as right, and why code overrode the score ('' when not).

    Code does not let a score stand that its own evaluation contradicts: an answer that is
    "I don't know" (in any of the usual words) is never right, nor is one whose feedback
    opens by saying it is wrong or names a misconception."""
    if answer.was_off_topic or answer.score < pass_score:
        return False, ""
    said = fold(student)
    if not said or any(said == n or said.startswith(n + " ") for n in NON_ANSWERS):
        return False, "the learner did not know the answer"
    if fold(answer.feedback).startswith(NEGATIVE_OPENINGS) or answer.misconception.strip():
        return False, "the evaluator's own feedback says the answer is wrong"
    return True, ""


def not_evaluated(step: PlanStepData, why: str) -> SimplifiedState:
    """The evaluator's answer stayed unusable after re-asks (a small model wrote field names
    as its feedback): the answer is not counted, nothing about the step changes, and the
    learner is told so and asked again."""
    stamp = p.now_iso()
    text = (
        "(The tutor model could not evaluate this answer, so it is not counted. "
        "Please answer again, in other words.)"
    )
    message: MessageData = {
        "role": "tutor",
        "content": text,
        "timestamp": stamp,
        "kind": "feedback",
        "hints": [],
        "step_id": step["step_id"],
    }
    last: LastEvaluationData = {
        "score": 0.0,
        "feedback": text,
        "reasoning": "",
        "correct": False,
        "step_id": step["step_id"],
        "step_status": step.get("status", "in_progress"),
        "was_off_topic": False,
        "replan_needed": False,
        "replan_reason": None,
        "not_evaluated": why,
    }
    return {
        "conversation": [message],
        "last_evaluation": last,
        "replan_needed": False,
        "replan_reason": None,
    }


def feedback_text(answer: EvaluatorAnswer, question: str, correct: bool, redirect: str) -> str:
    """What the learner reads about their answer: the evaluator's feedback (its redirect when
    off topic), unless it has no words (`1`, `0`) or only says the tutor's question back;
    then code's short verdict (or `redirect`)."""
    said = readable(answer.off_topic_response if answer.was_off_topic else answer.feedback)
    if said_before(said, question):
        said = ""
    if answer.was_off_topic:
        return said or redirect
    return said or ("Correct!" if correct else "Not quite.")
