"""Escalation to the user, and writing the lesson note with its frontmatter and savings row."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from core.context import FlowContext
from core.evaluation import load_criteria
from core.evaluation.prompts import build_messages
from core.flows.lesson import document
from core.flows.lesson.judging import judge_context
from core.flows.lesson.nodes import trace, vault_of
from core.flows.lesson.state import LessonDecision, LessonReview, LessonState, LessonStatus
from core.flows.lesson.traces import (
    JUDGE_NODES,
    LessonRunRow,
    judge_call_estimate,
    node_tokens,
    panel_size,
    phase_traces,
    run_total_tokens,
    save_run,
)
from core.reviews import InvalidDecision

EscalationRoute = Literal["accept", "reject", "regenerate", "judge", "edit", "escalate"]
ACTIONS: tuple[EscalationRoute, ...] = ("accept", "regenerate", "judge", "edit", "reject")


async def escalate(state: LessonState) -> LessonState:
    """Ask the user: accept, regenerate, send to the judges again, edit, or reject."""
    shown = LessonReview.model_validate(
        {
            "title": f"Lesson: {state.get('topic', '')}",
            "lesson": state.get("lesson", ""),
            "cascade": state.get("cascade"),
            "self_review": state.get("self_review"),
            "heuristics": state.get("heuristics"),
            "actions": list(ACTIONS),
        }
    )
    value = interrupt(shown.payload())
    try:
        decision = LessonDecision.parse(value)
    except InvalidDecision as exc:  # the runtime refuses these; an answer given another way
        return {"decision": {"action": "invalid"}, "messages": [f"{exc}."]}
    return {"decision": {"action": decision.action, "content": decision.content}}


def route_escalation(
    state: LessonState,
) -> EscalationRoute:
    action = (state.get("decision") or {}).get("action", "")
    return next((a for a in ACTIONS if a == action), "escalate")


async def apply_decision(state: LessonState) -> LessonState:
    """The user's edit or request to judge again: clear the old verdict (side effects here,
    after the interrupt's node)."""
    decision = state.get("decision") or {}
    update: LessonState = {
        "judge_primary": None,
        "judge_secondary": None,
        "judge_tiebreak": None,
        "cascade": None,
    }
    if decision.get("action") == "edit":
        update |= {
            "before_fix": state["lesson"],
            "lesson": str(decision["content"]),
            "skip_self_review": True,
        }
    return update


def final_status(state: LessonState) -> LessonStatus:
    if state.get("status") == "needs_regeneration":
        return "needs_regeneration"
    action = (state.get("decision") or {}).get("action")
    if action == "reject":
        return "rejected"
    cascade = state.get("cascade") or {}
    if action == "accept" or cascade.get("decision") == "accept":
        return "accepted"
    return "needs_review"


def frontmatter_of(
    state: LessonState, status: str, tokens: dict[str, int], run_id: str
) -> dict[str, object]:
    review = state.get("self_review") or {}
    cascade = state.get("cascade") or {}
    meta: dict[str, object] = {
        "type": "lesson",
        "topic": state.get("topic", ""),
        "language": state.get("language", ""),
        "objectives": list(state.get("objectives") or []),
        "status": status,
        "self_review": {
            "decision": review.get("decision", "not run"),
            "issues": len(review.get("issues", [])),
            "fix_applied": bool(review.get("self_fix_applied")),
        },
        "judge": {
            "decision": cascade.get("decision", "not judged"),
            "score": cascade.get("score"),
            "judges": len(cascade.get("votes", [])),
            "scores": cascade.get("scores", {}),
        },
        "tokens": tokens,
        "noema_run": run_id,
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if state.get("concept_path"):
        meta["concept"] = f"[[{state['concept_path'].rsplit('/', 1)[-1].removesuffix('.md')}]]"
    return meta


def phase_tokens(runtime: Runtime[FlowContext]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for t in phase_traces(runtime.context.store, runtime.context.run_id):
        totals[t["phase"]] = totals.get(t["phase"], 0) + int(t["tokens"])
    return {k: v for k, v in totals.items() if v} | {
        "total": run_total_tokens(runtime.context.store, runtime.context.run_id)
    }


def full_judging_cost(state: LessonState, runtime: Runtime[FlowContext]) -> int:
    """What judging this lesson with the full panel would have cost (see traces)."""
    user_dir = runtime.context.settings.data_dir / "criteria"
    criteria = load_criteria("lesson", "lesson", [user_dir]).criteria
    messages = build_messages(
        criteria, state.get("lesson", ""), "lesson", None, judge_context(state)
    )
    prompt = runtime.context.llm.count_tokens(messages, role="judge")
    estimate = judge_call_estimate(runtime.context.store, runtime.context.run_id, prompt)
    return panel_size(runtime.context.settings) * estimate


def _write_note(
    state: LessonState, runtime: Runtime[FlowContext], meta: Mapping[str, object]
) -> tuple[str, str]:
    vault = vault_of(runtime)
    writer = vault.writer
    if state.get("mode") == "review":
        path = state["note_path"]
        existing = writer.read(path).text
        text = document.render_note(state["lesson"], meta, existing)
        return path, writer.write(path, text, expected_hash=state.get("note_hash"))
    plan = state.get("plan")
    title = (plan["title"] if plan else "") or state.get("topic") or "Lesson"
    path = writer.unique_path(vault.layout.lessons, title)
    return path, writer.create(path, document.render_note(state["lesson"], meta))


async def write_lesson(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Write the lesson note, then the run's summary row (judge tokens vs judging fully)."""
    started = time.perf_counter()
    status = final_status(state)
    ctx = runtime.context
    tokens = phase_tokens(runtime)
    meta = frontmatter_of(state, status, tokens, ctx.run_id)
    path, digest = _write_note(state, runtime, meta)
    if ctx.vault is not None:
        ctx.vault.reindex(path)
    cascade = state.get("cascade") or {}
    spent = node_tokens(ctx.store, ctx.run_id, *JUDGE_NODES)
    save_run(
        ctx.store,
        LessonRunRow(
            run_id=ctx.run_id,
            mode=state.get("mode", "generate"),
            topic=state.get("topic", ""),
            language=state.get("language", ""),
            lesson_path=path,
            status=status,
            heuristic_action=str((state.get("heuristics") or {}).get("action", "NONE")),
            self_review_status=str((state.get("self_review") or {}).get("decision", "")),
            caught_by=state.get("caught_by", ""),
            judges_called=_judge_calls(ctx),
            judge_tokens=spent,
            # the full panel never costs less than the judging this run really did (a cascade that
            # called every judge, or re-asked one, spent more than the per-call estimate)
            full_judge_tokens=max(full_judging_cost(state, runtime), spent),
            total_tokens=tokens["total"],
            score=cascade.get("score"),
        ),
    )
    trace(runtime, "write", status, started, (), path=path)
    return {
        "lesson_path": path,
        "note_hash": digest,
        "status": status,
        "messages": [f"Lesson written to {path} ({status})."],
    }


def _judge_calls(ctx: FlowContext) -> int:
    row = ctx.store.query_one(
        "SELECT COUNT(*) FROM lesson_traces WHERE run_id = ? AND phase = 'judge'"
        " AND status != 'skipped'",
        (ctx.run_id,),
    )
    return int(row[0]) if row else 0
