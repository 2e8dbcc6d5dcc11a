"""The study plan in code: current step, mastery, status updates and the routers.

Everything here is deterministic. The step statuses are the source of truth: no index of the
current step is stored anywhere, it is derived (in progress, else the first pending).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Final, Literal

from core.flows.tutor.state import PlanStepData, SimplifiedState, StudyPlanData

DONE: Final = "completed"


def now_iso() -> str:
    """The current UTC time as ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def steps(plan: StudyPlanData | None) -> list[PlanStepData]:
    """The plan's steps (an empty list when there is no plan)."""
    return list((plan or {}).get("todo_list") or [])


def current_step(plan: StudyPlanData | None) -> PlanStepData | None:
    """The step in progress, else the first pending one, else None (nothing left to teach)."""
    todo = steps(plan)
    for wanted in ("in_progress", "pending"):
        for step in todo:
            if step.get("status") == wanted:
                return step
    return None


def step_index(plan: StudyPlanData | None, step_id: str) -> int:
    """The 0-based position of a step, -1 when absent."""
    return next((i for i, s in enumerate(steps(plan)) if s.get("step_id") == step_id), -1)


def all_completed(plan: StudyPlanData | None) -> bool:
    """Whether the plan has steps and every one is completed."""
    todo = steps(plan)
    return bool(todo) and all(step.get("status") == DONE for step in todo)


def step_mastery(step: PlanStepData) -> float:
    """A completed step counts 1; a started one half its share of correct answers; else 0."""
    if step.get("status") == DONE:
        return 1.0
    info = step.get("status_info") or {}
    asked = int(info.get("questions_asked", 0))
    if asked == 0:
        return 0.0
    return 0.5 * min(1.0, int(info.get("questions_correct", 0)) / asked)


def mastery(plan: StudyPlanData | None) -> float:
    """Mastery of the session (0-1): the mean of the steps' mastery."""
    todo = steps(plan)
    if not todo:
        return 0.0
    return round(sum(step_mastery(step) for step in todo) / len(todo), 4)


def progress(plan: StudyPlanData | None) -> tuple[int, int]:
    """(completed steps, total steps)."""
    todo = steps(plan)
    return sum(1 for step in todo if step.get("status") == DONE), len(todo)


def mark_started(plan: StudyPlanData, step_id: str) -> StudyPlanData:
    """A copy of the plan with a pending step moved to in progress (its first question)."""
    new = copy.deepcopy(plan)
    for step in new.get("todo_list", []):
        if step["step_id"] == step_id and step["status"] == "pending":
            step["status"] = "in_progress"
    return new


def apply_answer(
    plan: StudyPlanData,
    step_id: str,
    *,
    correct: bool,
    proposed: str,
    correct_to_complete: int,
    failures_to_block: int,
) -> StudyPlanData:
    """A copy of the plan after one on-topic answer on a step.

    Code keeps the counters. The step completes when the evaluator says its success criteria are
    met on a correct answer, or after `correct_to_complete` correct answers; it is blocked after
    `failures_to_block` wrong answers (a replan trigger); otherwise it stays in progress.
    """
    new = copy.deepcopy(plan)
    for step in new.get("todo_list", []):
        if step["step_id"] != step_id:
            continue
        info = step.setdefault("status_info", {})
        info["questions_asked"] = info.get("questions_asked", 0) + 1
        info["attempts"] = info.get("attempts", 0) + 1
        info["questions_correct"] = info.get("questions_correct", 0) + int(correct)
        failures = info["attempts"] - info["questions_correct"]
        if correct and (proposed == DONE or info["questions_correct"] >= correct_to_complete):
            step["status"] = DONE
        elif failures >= failures_to_block:
            step["status"] = "blocked"
        else:
            step["status"] = "in_progress"
    return new


def failures(step: PlanStepData | None) -> int:
    """Wrong answers on a step so far."""
    info = (step or {}).get("status_info") or {}
    return int(info.get("attempts", 0)) - int(info.get("questions_correct", 0))


def replan_count(plan: StudyPlanData | None) -> int:
    return int(((plan or {}).get("metadata") or {}).get("replan_count", 0))


# -- routers -----------------------------------------------------------------------------


def route_entry(state: SimplifiedState) -> Literal["planner", "evaluator", "executor", "closed"]:
    """Spec 004's ROUTER: no plan -> planner; the student spoke last -> evaluator; else executor.

    A session that has ended stays closed: a message sent to it changes nothing but the log.
    """
    if state.get("is_complete"):
        return "closed"
    if not steps(state.get("study_plan")):
        return "planner"
    conversation = state.get("conversation") or []
    if conversation and conversation[-1].get("role") == "student":
        return "evaluator"
    return "executor"


def route_after_evaluation(
    state: SimplifiedState, max_replans: int
) -> Literal["replan", "continue", "end"]:
    """Replan while replans are left; end when every step is done or no replan is left."""
    plan = state.get("study_plan")
    if state.get("replan_needed"):
        return "replan" if replan_count(plan) < max_replans else "end"
    if all_completed(plan):
        return "end"
    if current_step(plan) is None:
        # every remaining step is blocked and no replan was asked: nothing left to teach
        return "end"
    return "continue"


def outcome_of(state: SimplifiedState) -> Literal["completed", "needs_another_approach"]:
    """How an ended session is recorded."""
    return "completed" if all_completed(state.get("study_plan")) else "needs_another_approach"
