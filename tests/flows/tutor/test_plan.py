"""The plan in code: current step, mastery, status updates and the two routers."""

from __future__ import annotations

import pytest

from core.flows.tutor import plan as p


def make_plan(*statuses: str, replans: int = 0) -> dict:
    return {
        "todo_list": [
            {
                "step_id": f"s{i}",
                "title": f"Step {i}",
                "description": "d",
                "teaching_approach": "a",
                "success_criteria": "c",
                "status": status,
                "status_info": {"questions_asked": 0, "questions_correct": 0, "attempts": 0},
            }
            for i, status in enumerate(statuses, 1)
        ],
        "metadata": {"plan_version": 1 + replans, "replan_count": replans, "max_replans": 3},
    }


def msg(role: str) -> dict:
    return {"role": role, "content": "x", "timestamp": "t"}


def test_current_step_prefers_in_progress_then_first_pending() -> None:
    assert p.current_step(make_plan("completed", "pending", "in_progress"))["step_id"] == "s3"
    assert p.current_step(make_plan("completed", "pending", "pending"))["step_id"] == "s2"
    assert p.current_step(make_plan("completed", "completed")) is None
    assert p.current_step(None) is None


def test_router_rules() -> None:
    assert p.route_entry({}) == "planner"
    assert p.route_entry({"study_plan": {"todo_list": []}}) == "planner"
    planned = make_plan("pending", "pending", "pending")
    assert p.route_entry({"study_plan": planned, "conversation": []}) == "executor"
    convo = [msg("tutor"), msg("student")]
    assert p.route_entry({"study_plan": planned, "conversation": convo}) == "evaluator"
    assert p.route_entry({"study_plan": planned, "conversation": convo[:1]}) == "executor"
    ended = {"study_plan": planned, "conversation": convo, "is_complete": True}
    assert p.route_entry(ended) == "closed"


def test_route_after_evaluation_replan_limit_and_completion() -> None:
    going = make_plan("completed", "in_progress", "pending")
    assert p.route_after_evaluation({"study_plan": going}, 3) == "continue"
    assert p.route_after_evaluation({"study_plan": going, "replan_needed": True}, 3) == "replan"
    spent = make_plan("completed", "in_progress", "pending", replans=3)
    assert p.route_after_evaluation({"study_plan": spent, "replan_needed": True}, 3) == "end"
    assert p.route_after_evaluation({"study_plan": going, "replan_needed": True}, 0) == "end"
    done = make_plan("completed", "completed", "completed")
    assert p.route_after_evaluation({"study_plan": done}, 3) == "end"
    assert p.outcome_of({"study_plan": done}) == "completed"
    assert p.outcome_of({"study_plan": spent}) == "needs_another_approach"


def test_apply_answer_counts_completes_and_blocks() -> None:
    plan = make_plan("in_progress", "pending", "pending")
    rules = {"correct_to_complete": 2, "failures_to_block": 3}
    once = p.apply_answer(plan, "s1", correct=True, proposed="in_progress", **rules)
    assert once["todo_list"][0]["status"] == "in_progress"
    assert once["todo_list"][0]["status_info"] == {
        "questions_asked": 1,
        "questions_correct": 1,
        "attempts": 1,
    }
    assert plan["todo_list"][0]["status_info"]["attempts"] == 0  # the input is not mutated
    twice = p.apply_answer(once, "s1", correct=True, proposed="in_progress", **rules)
    assert twice["todo_list"][0]["status"] == "completed"
    said_done = p.apply_answer(plan, "s1", correct=True, proposed="completed", **rules)
    assert said_done["todo_list"][0]["status"] == "completed"
    wrong_but_said_done = p.apply_answer(plan, "s1", correct=False, proposed="completed", **rules)
    assert wrong_but_said_done["todo_list"][0]["status"] == "in_progress"
    failing = plan
    for _ in range(3):
        failing = p.apply_answer(failing, "s1", correct=False, proposed="in_progress", **rules)
    assert failing["todo_list"][0]["status"] == "blocked"
    assert p.failures(failing["todo_list"][0]) == 3


def test_mastery_is_computed_from_statuses() -> None:
    assert p.mastery(None) == 0.0
    assert p.mastery(make_plan("completed", "pending")) == 0.5
    plan = make_plan("completed", "in_progress", "pending", "pending")
    plan["todo_list"][1]["status_info"] = {
        "questions_asked": 2,
        "questions_correct": 1,
        "attempts": 2,
    }
    assert p.mastery(plan) == pytest.approx((1 + 0.25) / 4)
    assert p.progress(plan) == (1, 4)
    assert p.mark_started(plan, "s3")["todo_list"][2]["status"] == "in_progress"
    assert p.mark_started(plan, "s1")["todo_list"][0]["status"] == "completed"
