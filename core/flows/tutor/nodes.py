"""The three agents (PLANNER, EXECUTOR, EVALUATOR) and the closing node of a session.

Models judge and write; code counts, decides statuses from their answers, computes mastery and
routes. Each agent step appends one log entry (state + log files). The executor streams its
message through `get_stream_writer()` as `{"node": "executor", "token": ...}` chunks; before
each model call an agent announces itself (`{"node": ..., "message": ..., "working": True}`).
"""

from __future__ import annotations

import contextlib

from langgraph.config import get_config, get_stream_writer
from langgraph.runtime import Runtime

from core.context import FlowContext
from core.degenerate import RepeatWatch, drop_repeats, echoes, fold, repeated_sentence
from core.flows.tutor import logs
from core.flows.tutor import plan as p
from core.flows.tutor.fallback_plan import (
    NOTICE,
    REPLAN_NOTICE,
    fallback_draft,
    filled_in,
    kept_plan,
    padded,
)
from core.flows.tutor.hints import HintSplitter, readable
from core.flows.tutor.prompts import (
    GROUNDED_EVALUATOR_ANSWER,
    MESSAGE_SHAPE,
    EvaluatorAnswer,
    GroundedPlanDraft,
    PlanDraft,
    StepDraft,
    evaluator_messages,
    evaluator_schema,
    executor_messages,
    plan_schema,
    planner_messages,
    usable_steps,
)
from core.flows.tutor.sessions import record_mastery, record_session
from core.flows.tutor.state import (
    AgentLogData,
    LastEvaluationData,
    MessageData,
    PlanStepData,
    SimplifiedState,
    StudyPlanData,
    SummaryData,
)
from core.flows.tutor.summary import build_summary, note_text, summary_text
from core.flows.tutor.verdict import decide_replan, feedback_text, judged_correct, not_evaluated
from core.model_failures import raise_unless_fallback, why
from core.settings.flows import TutorSettings
from local_llm import LLMError

REDIRECT = "That's an interesting thought! Let's get back to our question, though."


def session_id(state: SimplifiedState, runtime: Runtime[FlowContext]) -> str:
    """The session id: the state's, else the run id, else the thread id."""
    if state.get("session_id"):
        return str(state["session_id"])
    if getattr(runtime.context, "run_id", ""):
        return runtime.context.run_id
    with contextlib.suppress(RuntimeError):
        return str(get_config()["configurable"].get("thread_id", ""))
    return ""


def recent(state: SimplifiedState, settings: TutorSettings) -> list[MessageData]:
    return list(state.get("conversation") or [])[-settings.recent_messages :]


def finish_log(runtime: Runtime[FlowContext], sid: str, item: AgentLogData) -> SimplifiedState:
    """Write an agent log entry to the session's files; returns the state update part."""
    logs.write(runtime.context.settings.data_dir, sid, item)
    return {"agent_logs": [item], "last_updated_at": item["timestamp"]}


def announce(node: str, doing: str) -> None:
    """Tell front ends an agent is about to wait on the model (`{"working": True}`).

    Written just before the call: it reaches the front end while the model works, so whatever
    the front end draws then costs the turn nothing."""
    get_stream_writer()({"node": node, "message": doing, "working": True})


def tutor(runtime: Runtime[FlowContext]) -> TutorSettings:
    return runtime.context.settings.flows.tutor


def merged(state: SimplifiedState, update: SimplifiedState) -> SimplifiedState:
    """The state after an update, append-only lists appended (as the reducers will)."""
    full: SimplifiedState = {**state, **update}
    if "conversation" in update:
        full["conversation"] = [*state.get("conversation", []), *update["conversation"]]
    if "agent_logs" in update:
        full["agent_logs"] = [*state.get("agent_logs", []), *update["agent_logs"]]
    if "misconceptions" in update:
        full["misconceptions"] = [*state.get("misconceptions", []), *update["misconceptions"]]
    return full


# -- PLANNER -------------------------------------------------------------------------------


def distinct_steps(draft: PlanDraft) -> list[StepDraft]:
    """The drafted steps, each title once (a small model repeats one step five times)."""
    seen: set[str] = set()
    steps = []
    for step in draft.steps():
        if fold(step.title) not in seen:
            seen.add(fold(step.title))
            steps.append(step)
    return steps


def build_plan(state: SimplifiedState, draft: PlanDraft, max_replans: int) -> StudyPlanData:
    """The new plan: drafted steps with code's ids and counters; completed steps kept on replan."""
    old = state.get("study_plan") or {}
    meta = old.get("metadata") or {}
    replanning = bool(p.steps(old))
    version = int(meta.get("plan_version", 0)) + 1 if replanning else 1
    kept = [s for s in p.steps(old) if s.get("status") == p.DONE]
    drafted = distinct_steps(draft)
    fresh: list[PlanStepData] = [
        {
            "title": step.title,
            "description": step.description,
            "teaching_approach": step.teaching_approach,
            "success_criteria": step.success_criteria,
            "step_id": f"v{version}-s{i}",
            "status": "pending",
            "status_info": {"questions_asked": 0, "questions_correct": 0, "attempts": 0},
        }
        for i, step in enumerate(drafted, 1)
    ]
    replans = int(meta.get("replan_count", 0)) + (1 if replanning else 0)
    return {
        "todo_list": kept + fresh,
        "metadata": {"plan_version": version, "replan_count": replans, "max_replans": max_replans},
    }


async def drafted_plan(
    state: SimplifiedState, runtime: Runtime[FlowContext], replanning: bool
) -> tuple[StudyPlanData, str, str]:
    """(plan, the model's reasoning, notice): the model's plan, else (an unusable answer, never
    a model that did not answer) code's plan from the concept, or on replan the current one."""
    settings = tutor(runtime)
    messages = planner_messages(state, recent(state, settings))
    try:
        draft = await runtime.context.llm.structured(
            messages, GroundedPlanDraft, role="default", json_schema=plan_schema(replanning)
        )
    except LLMError as exc:  # invalid after re-asks: code's plan, and said; no answer: fails
        raise_unless_fallback(exc)
        return unusable_plan(state, settings.max_replans, replanning, why(exc))
    usable, dropped = usable_steps(draft)
    if usable is None:
        return unusable_plan(state, settings.max_replans, replanning, dropped)
    language = str((state.get("student_profile") or {}).get("language") or "en")
    draft = filled_in(usable, language)
    if not replanning:
        draft = padded(draft, state.get("topic_info") or {}, language)
    plan = build_plan(state, draft, settings.max_replans)
    return plan, f"the model's plan{f' ({dropped} left out)' if dropped else ''}", ""


def unusable_plan(
    state: SimplifiedState, max_replans: int, replanning: bool, problem: str
) -> tuple[StudyPlanData, str, str]:
    """Code's plan from the concept (or, on replan, the current plan kept), with the reason."""
    if replanning:
        reason = f"current plan kept: the model's new plan was unusable ({problem})"
        return kept_plan(state.get("study_plan") or {}), reason, REPLAN_NOTICE
    language = str((state.get("student_profile") or {}).get("language") or "en")
    draft = fallback_draft(state.get("topic_info") or {}, language)
    reason = f"built from the concept: the model's plan was unusable ({problem})"
    return build_plan(state, draft, max_replans), reason, NOTICE


async def planner(state: SimplifiedState, runtime: Runtime[FlowContext]) -> SimplifiedState:
    """A 3-5 step plan adapted to the learner; on replan, the remaining work planned again."""
    timer = logs.Timer()
    sid = session_id(state, runtime)
    replanning = bool(p.steps(state.get("study_plan")))
    announce("planner", "planning again" if replanning else "planning")
    plan, reasoning, notice = await drafted_plan(state, runtime, replanning)
    message = notice or ("plan changed" if replanning else "plan ready")
    get_stream_writer()(
        {
            "node": "planner",
            "message": message,
            "plan": plan,
            "replanned": replanning and not notice,
            "notice": notice,
        }
    )
    title = (state.get("topic_info") or {}).get("title", "")
    what = (
        f"Replan for {title!r}: {state.get('replan_reason')}" if replanning else f"Plan {title!r}"
    )
    item = logs.entry("planner", f"{what} ({notice})" if notice else what, plan, reasoning, timer)
    update: SimplifiedState = {
        "session_id": sid,
        "study_plan": plan,
        "replan_needed": False,
        "replan_reason": None,
        "mastery": p.mastery(plan),
    }
    if not state.get("created_at"):
        update["created_at"] = p.now_iso()
    return {**update, **finish_log(runtime, sid, item)}


# -- EXECUTOR ------------------------------------------------------------------------------


async def stream_message(
    runtime: Runtime[FlowContext], messages: list[dict[str, str]]
) -> tuple[str, list[str]]:
    """Stream the model's text to the front end token by token; returns (message, hints)."""
    write = get_stream_writer()
    splitter, shown = HintSplitter(), RepeatWatch()
    announce("executor", "writing")
    async for piece in runtime.context.llm.stream(messages, role="default", shape=MESSAGE_SHAPE):
        visible = splitter.feed(piece)
        if visible:
            write({"node": "executor", "token": visible})
            if shown.feed(visible):
                break  # a looping model: stop it before the learner reads the loop
    message, hints = splitter.finish()
    if repeated_sentence(message, times=2):
        message = drop_repeats(message)
    if echoes(message, messages[0]["content"]):  # the instructions said back: no message
        return "", hints
    return readable(message), hints


async def executor(state: SimplifiedState, runtime: Runtime[FlowContext]) -> SimplifiedState:
    """One teaching message with one question (and hints) for the current step."""
    timer, settings = logs.Timer(), tutor(runtime)
    sid = session_id(state, runtime)
    plan = state.get("study_plan") or {}
    step = p.current_step(plan)
    if step is None:
        return {}
    plan = p.mark_started(plan, step["step_id"])
    messages = executor_messages(state, step, recent(state, settings), state.get("last_evaluation"))
    text, hints = await stream_message(runtime, messages)
    if not text:  # a small model may end its turn at once: ask once more
        text, hints = await stream_message(runtime, messages)
    stand_in = ""
    if not text:  # still nothing: the planned step, and the learner is told it is one
        stand_in = STAND_IN
        text = f"{STAND_IN} {step['title']}: {step['description']}"
    general = not hints
    if general:
        hints = fallback_hints(step)
    message: MessageData = {
        "role": "tutor",
        "content": text,
        "timestamp": p.now_iso(),
        "kind": "teaching",
        "hints": hints,
        "step_id": step["step_id"],
    }
    # the message as it will be stored: a screen shows it now, not after the node's writes
    get_stream_writer()({"node": "executor", "message": "done", "done": True, "reply": message})
    output = {"message": text, "hints": hints} | ({"fallback": stand_in} if stand_in else {})
    output |= {"hints_by": "code (the model wrote none)"} if general else {}
    item = logs.entry("executor", f"Step {step['title']!r}", output, "", timer)
    update: SimplifiedState = {
        "study_plan": plan,
        "conversation": [message],
        "mastery": p.mastery(plan),
    }
    update.update(finish_log(runtime, sid, item))
    record_session(runtime.context.store, sid, merged(state, update))
    return update


STAND_IN = "(The tutor model wrote nothing, twice; here is the planned step.)"
"""Opens a message code made from the plan because the model wrote none: the learner is told."""


GENERAL_HINTS = "(General hints: the tutor model wrote none for this question.)"
"""Opens the hints code made because the model wrote none: the learner is told."""


def fallback_hints(step: PlanStepData) -> list[str]:
    """Hints when the model wrote none: about the step's topic and method, never its success
    criteria (those say what a right answer is); the first says they are general ones."""
    return [
        f'{GENERAL_HINTS} Think about what "{step["title"]}" means in your own words.',
        "Re-read the question and answer just the part you are sure of first.",
    ]


# -- EVALUATOR -----------------------------------------------------------------------------


def asked_step(state: SimplifiedState) -> PlanStepData | None:
    """The step of the tutor's last question (if still open), else the current step."""
    plan = state.get("study_plan") or {}
    for message in reversed(state.get("conversation") or []):
        if message.get("role") == "tutor" and message.get("kind") == "teaching":
            index = p.step_index(plan, message.get("step_id", ""))
            if index >= 0 and p.steps(plan)[index]["status"] in ("pending", "in_progress"):
                return p.steps(plan)[index]
            break
    return p.current_step(plan)


def last_question(state: SimplifiedState) -> str:
    for message in reversed(state.get("conversation") or []):
        if message.get("role") == "tutor":
            return str(message.get("content", ""))
    return ""


def evaluation_update(
    state: SimplifiedState,
    step: PlanStepData,
    answer: EvaluatorAnswer,
    settings: TutorSettings,
) -> SimplifiedState:
    """Plan statuses, notes, feedback message and routing flags from one evaluation."""
    plan = state.get("study_plan") or {}
    student = str((state.get("conversation") or [{}])[-1].get("content", ""))
    correct, overridden = judged_correct(answer, student, settings.pass_score)
    if not answer.was_off_topic:
        plan = p.apply_answer(
            plan,
            step["step_id"],
            correct=correct,
            proposed=answer.step_status,
            correct_to_complete=settings.correct_to_complete,
            failures_to_block=settings.failures_to_block,
        )
    updated = p.steps(plan)[p.step_index(plan, step["step_id"])]
    replan, reason = decide_replan(answer, updated, plan, correct)
    stamp = p.now_iso()
    message: MessageData = {
        "role": "tutor",
        "content": feedback_text(answer, last_question(state), correct, REDIRECT),
        "timestamp": stamp,
        "kind": "redirect" if answer.was_off_topic else "feedback",
        "hints": [],
        "step_id": step["step_id"],
    }
    notes = (state.get("assessment_notes") or "").rstrip()
    note = f"{stamp} - {step['title']}: {answer.assessment_note or answer.reasoning}"
    last: LastEvaluationData = {
        "score": answer.score,
        "feedback": message["content"],
        "reasoning": answer.reasoning,
        "correct": correct,
        "step_id": step["step_id"],
        "step_status": updated["status"],
        "was_off_topic": answer.was_off_topic,
        "replan_needed": replan,
        "replan_reason": reason,
        "overridden": overridden,
    }
    misconceptions = [answer.misconception] if answer.misconception and not correct else []
    return {
        "study_plan": plan,
        "conversation": [message],
        "last_evaluation": last,
        "assessment_notes": f"{notes}\n{note}".strip(),
        "replan_needed": replan,
        "replan_reason": reason,
        "misconceptions": misconceptions,
        "mastery": p.mastery(plan),
    }


async def evaluator(state: SimplifiedState, runtime: Runtime[FlowContext]) -> SimplifiedState:
    """Checks the learner's answer, scores it, updates the step and decides what comes next."""
    timer, settings = logs.Timer(), tutor(runtime)
    sid = session_id(state, runtime)
    step = asked_step(state)
    if step is None:
        return {"replan_needed": False}
    student = str((state.get("conversation") or [{}])[-1].get("content", ""))
    messages = evaluator_messages(
        state, step, last_question(state), student, recent(state, settings)[:-1]
    )
    announce("evaluator", "checking your answer")
    try:
        with GROUNDED_EVALUATOR_ANSWER.about(student) as schema:
            answer = await runtime.context.llm.structured(
                messages, schema, role="default", json_schema=evaluator_schema()
            )
    except LLMError as exc:  # invalid after re-asks: not counted, and said; no answer: fails
        raise_unless_fallback(exc)
        update = not_evaluated(step, why(exc))
        item = logs.entry(
            "evaluator",
            f"Not evaluated: {student[:120]}",
            {"fallback": update["last_evaluation"]["not_evaluated"]},
            "",
            timer,
        )
        return {**update, **finish_log(runtime, sid, item)}
    update = evaluation_update(state, step, answer, settings)
    record_mastery(runtime.context.store, sid, {**state, **update})
    item = logs.entry(
        "evaluator",
        f"Evaluate answer for {step['title']!r}: {student[:120]}",
        {**answer.model_dump(), "decided": update["last_evaluation"]},
        answer.reasoning,
        timer,
    )
    return {**update, **finish_log(runtime, sid, item)}


def route_after_evaluation(state: SimplifiedState) -> str:
    """The evaluator's routing with the plan's own replan limit."""
    meta = (state.get("study_plan") or {}).get("metadata") or {}
    return p.route_after_evaluation(state, int(meta.get("max_replans", 3)))


# -- end of session ------------------------------------------------------------------------


def save_note(
    runtime: Runtime[FlowContext], state: SimplifiedState, summary: SummaryData, sid: str
) -> str:
    """Write the summary note into the vault's tutoring folder ('' without a vault)."""
    vault = runtime.context.vault
    if vault is None:
        return ""
    title = (state.get("topic_info") or {}).get("title", "Session")
    rel = vault.writer.unique_path(vault.layout.tutoring, f"{title} {p.now_iso()[:10]}")
    index = getattr(vault, "index", None)
    linker = vault.writer.linker(index.resolver() if index is not None else None)
    vault.writer.create(rel, note_text(state, summary, sid, linker))
    with contextlib.suppress(Exception):  # the index can be rebuilt; never fail for it
        vault.reindex(rel)
    return rel


async def finish(state: SimplifiedState, runtime: Runtime[FlowContext]) -> SimplifiedState:
    """All steps done or no replan left: the summary, shown and saved as a note."""
    timer = logs.Timer()
    sid = session_id(state, runtime)
    outcome = p.outcome_of(state)
    summary = build_summary(state, outcome)
    summary["note_path"] = save_note(runtime, state, summary, sid)
    message: MessageData = {
        "role": "tutor",
        "content": summary_text(summary),
        "timestamp": p.now_iso(),
        "kind": "closing",
        "hints": [],
        "step_id": "",
    }
    update: SimplifiedState = {
        "is_complete": True,
        "outcome": outcome,
        "summary": summary,
        "conversation": [message],
        "replan_needed": False,
    }
    full = merged(state, update)
    record_session(runtime.context.store, sid, full)
    record_mastery(runtime.context.store, sid, full)
    item = logs.entry("finish", f"Session ended: {outcome}", summary, "", timer)
    return {**update, **finish_log(runtime, sid, item)}
