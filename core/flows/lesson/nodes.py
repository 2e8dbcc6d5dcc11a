"""Generation nodes: load the sources (or the lesson to review), plan, expand each section in
parallel (`Send`), assemble (code), smooth (transitions from the model, inserted by code)."""

from __future__ import annotations

import time
from typing import TypeVar

from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel

from core.context import FlowContext
from core.evaluation.node import progress
from core.flows.lesson import document
from core.flows.lesson.prompts import (
    Plan,
    SectionDraft,
    Transitions,
    expander_messages,
    planner_messages,
    smoother_messages,
)
from core.flows.lesson.sources import load_sources as read_sources
from core.flows.lesson.state import LessonState, SectionTask
from core.flows.lesson.traces import record_phase
from core.settings.flows import LessonSettings
from core.vault_handle import VaultHandle
from local_llm.schema import JsonSchema, bounded_schema

M = TypeVar("M", bound=BaseModel)


def lesson_settings(runtime: Runtime[FlowContext]) -> LessonSettings:
    return runtime.context.settings.flows.lesson


def trace(
    runtime: Runtime[FlowContext],
    phase: str,
    status: str,
    started: float,
    nodes: tuple[str, ...] = (),
    **detail: object,
) -> int:
    """Record a phase trace (tokens from the model traces of `nodes`) and report progress."""
    ctx = runtime.context
    elapsed = (time.perf_counter() - started) * 1000
    tokens = record_phase(
        ctx.store,
        ctx.run_id,
        phase,
        status,
        nodes=nodes or (phase,),
        duration_ms=elapsed,
        detail=detail,
    )
    progress(
        node=phase,
        phase=phase,
        status=status,
        tokens=tokens,
        duration_ms=round(elapsed, 1),
        message=f"{phase}: {status}",
    )
    return tokens


async def ask(
    runtime: Runtime[FlowContext],
    messages: list[dict[str, str]],
    model: type[M],
    schema: JsonSchema,
    role: str = "default",
) -> M:
    """A structured generation call with the lesson's completion limit."""
    limit = lesson_settings(runtime).generation_max_tokens or None
    return await runtime.context.llm.structured(
        messages, model, role=role, json_schema=schema, max_tokens=limit
    )


def section_schema(runtime: Runtime[FlowContext]) -> JsonSchema:
    """A section's bounded schema: at most `section_max_chars`, and never more characters
    than the completion limit can hold (a small model fills the allowed length; a longer
    bound than the limit gets its answer cut off, then re-asked, then failed)."""
    settings = lesson_settings(runtime)
    limit = settings.generation_max_tokens or runtime.context.llm.config("default").max_tokens
    fits = max(200, int((limit - SECTION_RESERVE) * CHARS_PER_TOKEN))
    return bounded_schema(SectionDraft, max_length={"text": min(settings.section_max_chars, fits)})


SECTION_RESERVE = 20
"""Completion tokens kept for the JSON around a section's text."""
CHARS_PER_TOKEN = 2.5
"""A low estimate of the characters one completion token holds (accents, markdown and JSON
escapes make Spanish prose cost more tokens than English)."""


def vault_of(runtime: Runtime[FlowContext]) -> VaultHandle:
    vault = runtime.context.vault
    if vault is None:
        raise RuntimeError("the lesson flow needs a configured vault")
    return vault


async def load_sources(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """The topic's concept note, its related concepts and supporting quotes."""
    started = time.perf_counter()
    settings = lesson_settings(runtime)
    material = read_sources(
        vault_of(runtime),
        runtime.context.store,
        state["concept"],
        language=state.get("language", ""),
        related_limit=settings.related_limit,
        quote_limit=settings.quote_limit,
    )
    language = material.language or settings.language
    trace(
        runtime,
        "sources",
        "ok",
        started,
        related=len(material.related),
        quotes=len(material.quotes),
    )
    return {
        "topic": material.topic,
        "concept_path": material.concept_path,
        "language": language,
        "source_text": material.text(),
        "status": "generating",
        "regenerations": 0,
        "self_fixes": 0,
        "judge_fixes": 0,
        "messages": [f"Writing a lesson on {material.topic} ({language})."],
    }


async def load_lesson(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Review mode: the existing lesson note, its language and objectives from frontmatter."""
    note = vault_of(runtime).writer.read(state["note_path"])
    meta = note.frontmatter
    language = state.get("language") or str(meta.get("language") or "")
    objectives = state.get("objectives") or [str(o) for o in meta.get("objectives") or []]
    topic = str(meta.get("topic") or note.title)
    return {
        "topic": topic,
        "language": language or lesson_settings(runtime).language,
        "objectives": objectives,
        "lesson": note.body,
        "note_hash": note.hash,
        "lesson_path": state["note_path"],
        "source_text": _review_sources(runtime, str(meta.get("concept") or ""), topic),
        "status": "generating",
        "regenerations": 0,
        "self_fixes": 0,
        "judge_fixes": 0,
        "messages": [f"Reviewing {state['note_path']}."],
    }


def _review_sources(runtime: Runtime[FlowContext], concept: str, topic: str) -> str:
    """The sources of a reviewed lesson: its `concept: [[...]]` note's material when it has
    one (so the judges check facts against it), else just the topic."""
    name = concept.strip().strip("[]").split("|")[0].strip()
    if name:
        settings = lesson_settings(runtime)
        try:
            return read_sources(
                vault_of(runtime),
                runtime.context.store,
                name,
                language="",
                related_limit=settings.related_limit,
                quote_limit=settings.quote_limit,
            ).text()
        except (FileNotFoundError, OSError, ValueError):
            pass
    return f"Topic: {topic}"


async def planner(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """The outline and objectives (exactly the requested number of sections)."""
    started = time.perf_counter()
    count = state.get("sections") or lesson_settings(runtime).section_count
    schema = bounded_schema(
        Plan,
        max_length={"title": 80, "goal": 200, "objectives": 160},
        max_items={"objectives": 5, "sections": count},
        min_items={"sections": count, "objectives": 1},
    )
    messages = planner_messages(
        state["topic"],
        state["language"],
        state["source_text"],
        list(state.get("objectives") or []),
        count,
    )
    plan: Plan = await ask(runtime, messages, Plan, schema)
    if state.get("objectives"):
        plan.objectives = list(state["objectives"])
    trace(runtime, "planner", "ok", started, sections=len(plan.sections))
    return {
        "plan": {
            "title": plan.title,
            "objectives": list(plan.objectives),
            "sections": [{"title": s.title, "goal": s.goal} for s in plan.sections],
        },
        "objectives": plan.objectives,
        "regen_sections": list(range(len(plan.sections))),
        "drafts": None,
    }


def fan_out(state: LessonState) -> list[Send]:
    """One `expand_section` task per section to (re)write, run in parallel."""
    return [
        Send(
            "expand_section",
            {
                "index": n,
                "plan": state["plan"],
                "language": state["language"],
                "source_text": state.get("source_text", ""),
            },
        )
        for n in state.get("regen_sections") or range(len(state["plan"]["sections"]))
    ]


async def expand_section(task: SectionTask, runtime: Runtime[FlowContext]) -> LessonState:
    """Write one section (the task carries the plan and the section index)."""
    settings = lesson_settings(runtime)
    plan = Plan.model_validate(task["plan"])
    index = int(task["index"])
    messages = expander_messages(
        plan, index, task["language"], task["source_text"], settings.min_section_words
    )
    draft: SectionDraft = await ask(runtime, messages, SectionDraft, section_schema(runtime))
    progress(node="expander", message=f"section {index + 1} written", section=index)
    return {"drafts": {str(index): document.strip_heading(draft.text)}}


async def assembler(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Code joins the sections in plan order; records the expander's and its own phase."""
    started = time.perf_counter()
    plan = Plan.model_validate(state["plan"])
    trace(
        runtime,
        "expander",
        "ok",
        started,
        ("expand_section",),
        sections=len(state.get("regen_sections") or []),
    )
    drafts = state["drafts"] or {}
    lesson = document.assemble(plan.title, [s.title for s in plan.sections], drafts)
    trace(runtime, "assembler", "ok", time.perf_counter(), (), chars=len(lesson))
    return {"lesson": lesson}


async def smoother(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Transitions between sections (the model writes them, code inserts them)."""
    started = time.perf_counter()
    sections = len(state["plan"]["sections"])
    if sections < 2:
        trace(runtime, "smoother", "skipped", started)
        return {}
    schema = bounded_schema(
        Transitions,
        max_length={"transitions": 240, "use": 40, "instead_of": 40},
        max_items={"transitions": sections - 1, "terminology": 4},
        min_items={"transitions": sections - 1},
    )
    messages = smoother_messages(state["lesson"], state["language"], sections - 1)
    answer: Transitions = await ask(runtime, messages, Transitions, schema)
    lesson = document.add_transitions(state["lesson"], answer.transitions)
    lesson, terms = document.apply_terminology(
        lesson, [(t.use, t.instead_of) for t in answer.terminology]
    )
    trace(runtime, "smoother", "ok", started, transitions=len(answer.transitions), terms=terms)
    return {"lesson": lesson}
