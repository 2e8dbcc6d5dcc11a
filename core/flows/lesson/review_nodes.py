"""Review nodes: the free checks, the self-reviewer, and the router of spec 3.4.

    heuristics -> (regenerate | self_review | judge)
    self_review -> (regenerate | recheck | judge | caught)

At most `max_self_fixes` self-fixes and `max_regenerations` regenerations (settings); after a
self-fix the heuristics check the patched lesson once more and it goes on to the judge.
"""

from __future__ import annotations

import time
from typing import Literal

from langgraph.runtime import Runtime

from core.context import FlowContext
from core.flows.lesson.heuristics import HeuristicAction, HeuristicReport, run_heuristics
from core.flows.lesson.nodes import lesson_settings, trace
from core.flows.lesson.prompts import SelfReviewAnswer, self_review_messages
from core.flows.lesson.records import SelfReviewData, SelfReviewIssueData
from core.flows.lesson.review_types import SelfReviewResult, SelfReviewStatus
from core.flows.lesson.selfreview import decide
from core.flows.lesson.state import LessonState
from core.model_failures import raise_unless_fallback, why
from local_llm import LLMError
from local_llm.schema import bounded_schema

REGEN_ACTIONS = (HeuristicAction.REGENERATE, HeuristicAction.PARTIAL_REGEN)


def report_of(state: LessonState) -> HeuristicReport:
    return HeuristicReport.model_validate(state["heuristics"])


def can_regenerate(state: LessonState, runtime: Runtime[FlowContext]) -> bool:
    return (
        state.get("mode", "generate") == "generate"
        and state.get("regenerations", 0) < lesson_settings(runtime).max_regenerations
    )


async def heuristics(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Every free check on the current lesson (no model)."""
    started = time.perf_counter()
    settings = lesson_settings(runtime)
    report = run_heuristics(
        state["lesson"], state["language"], min_section_words=settings.min_section_words
    )
    status = "PASS" if report.passed else str(report.action)
    trace(
        runtime,
        "heuristics",
        status,
        started,
        (),
        summary=report.summary(),
        ms=round(report.duration_ms, 3),
    )
    update: LessonState = {
        "heuristics": {**report.model_dump(mode="json"), "action": report.action.value}
    }
    if not state.get("caught_by") and report.action not in (
        HeuristicAction.NONE,
        HeuristicAction.FLAG_TO_JUDGE,
    ):
        update["caught_by"] = "heuristics"
    return update


def route_heuristics(
    state: LessonState, runtime: Runtime[FlowContext]
) -> Literal["regenerate", "self_review", "judge", "caught"]:
    """Regenerate for free when the checks demand it; skip the self-reviewer after a fix."""
    action = state["heuristics"]["action"]
    if action in REGEN_ACTIONS:
        if can_regenerate(state, runtime):
            return "regenerate"
        if state.get("mode") == "review":
            return "caught"
    if state.get("skip_self_review"):
        return "judge"
    return "self_review"


async def self_review(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """The self-reviewer (generator's model role), then code's overrides (see selfreview)."""
    started = time.perf_counter()
    settings = lesson_settings(runtime)
    report = report_of(state)
    answer, not_reviewed = None, ""
    if report.action not in REGEN_ACTIONS:  # code already knows: no model call
        answer, not_reviewed = await _ask_reviewer(state, runtime, report)
    can_fix = state.get("self_fixes", 0) < settings.max_self_fixes
    result = decide(
        report,
        answer,
        state["lesson"],
        state["language"],
        can_fix=can_fix,
        min_words=settings.min_section_words,
        not_reviewed=not_reviewed,
    )
    result.duration_ms = round((time.perf_counter() - started) * 1000, 3)
    result.tokens_used = trace(
        runtime,
        "self_review",
        str(result.decision),
        started,
        issues=len(result.issues),
        fixed=result.self_fix_applied,
        override=result.overridden_by_code,
    )
    return _review_update(state, result)


def self_review_data(result: SelfReviewResult) -> SelfReviewData:
    """The result as the state keeps it (`model_dump(mode="json")`, typed)."""
    issues: list[SelfReviewIssueData] = [
        {
            "type": i.type,
            "severity": i.severity,
            "location": i.location,
            "description": i.description,
            "source": i.source,
        }
        for i in result.issues
    ]
    return {
        "passed": result.passed,
        "decision": result.decision.value,
        "issues": issues,
        "self_fix_applied": result.self_fix_applied,
        "fixed_content": result.fixed_content,
        "reasoning": result.reasoning,
        "overridden_by_code": result.overridden_by_code,
        "not_reviewed": result.not_reviewed,
        "tokens_used": result.tokens_used,
        "duration_ms": result.duration_ms,
    }


def _review_update(state: LessonState, result: SelfReviewResult) -> LessonState:
    update: LessonState = {"self_review": self_review_data(result)}
    if result.self_fix_applied and result.fixed_content:
        update |= {
            "before_fix": state["lesson"],
            "lesson": result.fixed_content,
            "self_fixes": state.get("self_fixes", 0) + 1,
            "skip_self_review": True,
        }
    if not state.get("caught_by") and not result.passed:
        update["caught_by"] = "self_review"
    if result.not_reviewed:
        update["messages"] = [
            f"Not self-reviewed ({result.not_reviewed}); the judges see it flagged."
        ]
    else:
        update["messages"] = [f"Self-review: {result.decision} ({len(result.issues)} issues)."]
    return update


async def _ask_reviewer(
    state: LessonState, runtime: Runtime[FlowContext], report: HeuristicReport
) -> tuple[SelfReviewAnswer | None, str]:
    """(the answer, '') or (None, why it could not review): an answer invalid after re-asks.
    A model that does not answer at all fails the run here (resuming asks again)."""
    settings = lesson_settings(runtime)
    lesson = state["lesson"]
    schema = bounded_schema(
        SelfReviewAnswer,
        max_length={
            "reasoning": 400,
            "location": 120,
            "description": 300,
            "patched_content": int(len(lesson) * 1.3) + 200,
        },
        max_items={"issues": 6},
    )
    messages = self_review_messages(
        lesson,
        state["language"],
        list(state.get("objectives") or []),
        state.get("source_text", ""),
        report.summary(),
        settings.min_section_words,
    )
    try:
        answer = await runtime.context.llm.structured(
            messages,
            SelfReviewAnswer,
            role="default",
            json_schema=schema,
            max_tokens=settings.generation_max_tokens or None,
        )
    except LLMError as exc:
        raise_unless_fallback(exc)
        return None, why(exc)
    return answer, ""


def route_self_review(
    state: LessonState, runtime: Runtime[FlowContext]
) -> Literal["regenerate", "recheck", "judge", "caught"]:
    """Spec 3.4: fixed -> check again then judge; REGENERATE with a regeneration left -> expand
    again (at most `max_regenerations`, one by default); otherwise -> judge. A reviewed note
    the heuristics condemn is caught before the judges (nothing can regenerate it)."""
    result = state["self_review"] or {}
    if result.get("self_fix_applied"):
        return "recheck"
    if result["decision"] == SelfReviewStatus.REGENERATE:
        if can_regenerate(state, runtime):
            return "regenerate"
        if state.get("mode") == "review" and state["heuristics"]["action"] in REGEN_ACTIONS:
            return "caught"
    return "judge"


async def prepare_regen(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Which sections to rewrite: those the checks named (partial), else all of them."""
    sections = [s["title"] for s in state["plan"]["sections"]]
    report = report_of(state) if state.get("heuristics") else None
    named: list[int] = []
    if report is not None and report.action == HeuristicAction.PARTIAL_REGEN:
        wanted = set(report.sections_to_regenerate())
        named = [n for n, title in enumerate(sections) if title.strip() in wanted]
    chosen = named or list(range(len(sections)))
    trace(
        runtime,
        "regenerate",
        "partial" if named else "full",
        time.perf_counter(),
        (),
        sections=chosen,
    )
    return {
        "regen_sections": chosen,
        "regenerations": state.get("regenerations", 0) + 1,
        "skip_self_review": False,
        "judge_primary": None,
        "judge_secondary": None,
        "judge_tiebreak": None,
        "cascade": None,
        "messages": [f"Regenerating {len(chosen)} of {len(sections)} sections."],
    }


async def caught(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Review mode: the lesson failed before any judge; no judge tokens are spent."""
    trace(runtime, "judge", "skipped", time.perf_counter(), (), reason="caught before judging")
    return {
        "status": "needs_regeneration",
        "messages": ["The lesson needs regeneration; it was not sent to the judges."],
    }
