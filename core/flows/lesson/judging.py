"""The judge cascade as graph nodes, on the evaluation framework (`lesson` criteria, no human
review inside it): primary judge -> (secondary judge -> (tie-break judge)) -> verdict.

The verdict decides, by the thresholds in settings: accept (write the note), a targeted fix
of the sections the judges named (once), regenerate, or escalate to the user (interrupt).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Literal

from langgraph.runtime import Runtime

from core.context import FlowContext
from core.evaluation import EvaluationNodeOptions, create_evaluation_node
from core.evaluation.options import OptionChanges
from core.flows.lesson import cascade, document
from core.flows.lesson.nodes import ask, lesson_settings, section_schema, trace
from core.flows.lesson.prompts import SectionDraft, fix_messages
from core.flows.lesson.records import CascadeData, JudgeVoteData
from core.flows.lesson.review_types import CascadeVerdict, JudgeVote
from core.flows.lesson.state import LessonState

JudgeField = Literal["judge_primary", "judge_secondary", "judge_tiebreak"]
JUDGE_FIELDS: tuple[JudgeField, ...] = ("judge_primary", "judge_secondary", "judge_tiebreak")
JUDGES = {"judge_primary": "judge", "judge_secondary": "judge_secondary"}


def judge_context(state: LessonState) -> str:
    """Trusted reference for the judges: the sources and what the earlier checks flagged."""
    parts = [state.get("source_text", "")]
    if state.get("objectives"):
        parts.append("Learning objectives:\n" + "\n".join(f"- {o}" for o in state["objectives"]))
    review = state.get("self_review") or {}
    flagged = [
        f"- {i['type']} at {i['location']}: {i['description']}" for i in review.get("issues", [])
    ]
    if flagged:
        parts.append("Flagged before judging (check these):\n" + "\n".join(flagged[:8]))
    return "\n\n".join(p for p in parts if p)


def judge_options(field: str, role: str | None) -> EvaluationNodeOptions[LessonState]:
    def configure(state: LessonState, runtime: Runtime[FlowContext]) -> OptionChanges[LessonState]:
        settings = lesson_settings(runtime)
        changes: OptionChanges[LessonState] = {"timeout_s": settings.judge_timeout_s}
        # the user's own criteria folder first (a `lesson.json` there overrides the shipped one)
        changes["criteria_dirs"] = (runtime.context.settings.data_dir / "criteria",)
        changes["model_role"] = role or settings.tiebreak_role
        return changes

    return EvaluationNodeOptions[LessonState](
        content_type="lesson",
        content_extractor=lambda s: s.get("lesson"),
        result_field=field,
        status_field=f"{field}_status",
        human_review=False,
        context_extractor=judge_context,
        configure=configure,
        reraise_unanswered=True,
    )


def make_judge(
    field: str, role: str | None
) -> Callable[[LessonState, Runtime[FlowContext]], Awaitable[dict[str, object]]]:
    """A framework judge node that also leaves a phase trace."""
    inner = create_evaluation_node(judge_options(field, role)).judge

    async def judge(state: LessonState, runtime: Runtime[FlowContext]) -> dict[str, object]:
        started = time.perf_counter()
        update = await inner(state, runtime)
        result = update.get(field)
        status = (
            f"{result['overall_score']:.2f}" if isinstance(result, dict) and result else "error"
        )
        trace(runtime, "judge", status, started, (field,), judge=field)
        return update

    judge.__name__ = field
    return judge


judge_primary = make_judge("judge_primary", "judge")
judge_secondary = make_judge("judge_secondary", "judge_secondary")
judge_tiebreak = make_judge("judge_tiebreak", None)


def flagged(state: LessonState) -> bool:
    review = state.get("self_review") or {}
    return bool(review.get("issues")) or review.get("decision") not in (None, "PASS")


def votes_of(state: LessonState, runtime: Runtime[FlowContext]) -> list[JudgeVote | None]:
    settings = lesson_settings(runtime)
    roles: dict[JudgeField, str] = {
        "judge_primary": "judge",
        "judge_secondary": "judge_secondary",
        "judge_tiebreak": settings.tiebreak_role,
    }
    votes = [cascade.vote(roles[f], state.get(f), settings, flagged(state)) for f in roles]
    return votes


def route_primary(
    state: LessonState, runtime: Runtime[FlowContext]
) -> Literal["secondary", "verdict"]:
    primary = votes_of(state, runtime)[0]
    return cascade.after_primary(primary, lesson_settings(runtime))


def route_secondary(
    state: LessonState, runtime: Runtime[FlowContext]
) -> Literal["tiebreak", "verdict"]:
    primary, secondary, _ = votes_of(state, runtime)
    one_model = cascade.one_judge_model(runtime.context.settings)
    return cascade.after_secondary(
        primary, secondary, lesson_settings(runtime), one_model=one_model
    )


async def verdict(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Combine the judges that ran and decide by the thresholds."""
    settings = lesson_settings(runtime)
    votes = [v for v in votes_of(state, runtime) if v is not None]
    results = [judged for f in JUDGE_FIELDS if (judged := state.get(f))]
    generating = state.get("mode") == "generate"
    # a reviewed note is the user's own text: fixing or regenerating it is the user's call
    can_regen = generating and state.get("regenerations", 0) < settings.max_regenerations
    can_fix = generating and state.get("judge_fixes", 0) < settings.max_judge_fixes
    result = cascade.verdict(
        votes, results, settings, fixes_left=can_fix, regenerations_left=can_regen
    )
    if cascade.one_judge_model(runtime.context.settings):
        primary, secondary, _ = votes_of(state, runtime)
        if (
            state.get("judge_secondary")
            and cascade.after_secondary(primary, secondary, settings) == "tiebreak"
        ):
            trace(
                runtime,
                "judge",
                "skipped",
                time.perf_counter(),
                (),
                judge="judge_tiebreak",
                reason=cascade.ONE_MODEL_NOTE,
            )
        result.reason += "; " + cascade.ONE_MODEL_NOTE
    trace(
        runtime,
        "verdict",
        result.decision,
        time.perf_counter(),
        (),
        score=result.score,
        judges=len(votes),
    )
    return {
        "cascade": cascade_data(result),
        "messages": [f"Judges: {result.decision} ({result.reason})."],
    }


def cascade_data(verdict: CascadeVerdict) -> CascadeData:
    """The verdict as the state keeps it (`model_dump(mode="json")`, typed)."""
    votes: list[JudgeVoteData] = [
        {"role": v.role, "score": v.score, "confidence": v.confidence, "passed": v.passed}
        for v in verdict.votes
    ]
    return {
        "decision": verdict.decision,
        "score": verdict.score,
        "passed": verdict.passed,
        "votes": votes,
        "reason": verdict.reason,
        "scores": dict(verdict.scores),
    }


def route_verdict(state: LessonState) -> Literal["accept", "fix", "regenerate", "escalate"]:
    return CascadeVerdict.model_validate(state["cascade"]).decision


def _problems(state: LessonState) -> tuple[list[str], str]:
    """Section headings the judges pointed at, and their complaints as text."""
    wheres: list[str] = []
    lines: list[str] = []
    for field in JUDGE_FIELDS:
        result = state.get(field) or {}
        for c in result.get("criteria", []):
            if c.get("passed"):
                continue
            lines.append(f"- {c['name']}: {c.get('rationale', '')}")
            wheres += [i.get("where", "") for i in c.get("issues", [])]
        lines += [f"- {w}" for w in result.get("weaknesses", [])]
    return wheres, "\n".join(dict.fromkeys(lines)) or "- Improve clarity and completeness."


def sections_to_fix(body: str, wheres: list[str], limit: int = 2) -> list[int]:
    """Sections named by the judges' issues; else the shortest ones."""
    _, sections = document.split_sections(body)
    named = [
        n
        for n, (h, text) in enumerate(sections)
        if any(w and (w.lower() in h.lower() or w.lower()[:40] in text.lower()) for w in wheres)
    ]
    if not named:
        named = sorted(range(len(sections)), key=lambda n: len(sections[n][1]))
    return named[:limit]


async def targeted_fix(state: LessonState, runtime: Runtime[FlowContext]) -> LessonState:
    """Rewrite the sections the judges named (generator role), then check and judge again."""
    started = time.perf_counter()
    wheres, problems = _problems(state)
    preamble, sections = document.split_sections(state["lesson"])
    chosen = sections_to_fix(state["lesson"], wheres)
    schema = section_schema(runtime)
    for n in chosen:
        heading, text = sections[n]
        messages = fix_messages(
            f"## {heading}\n\n{text}", state["language"], problems, state.get("source_text", "")
        )
        draft: SectionDraft = await ask(runtime, messages, SectionDraft, schema)
        sections[n] = (heading, document.strip_heading(draft.text) or text)
    trace(runtime, "targeted_fix", "ok", started, sections=chosen)
    return {
        "before_fix": state["lesson"],
        "lesson": document.join_sections(preamble, sections),
        "judge_fixes": state.get("judge_fixes", 0) + 1,
        "skip_self_review": True,
        "judge_primary": None,
        "judge_secondary": None,
        "judge_tiebreak": None,
        "cascade": None,
        "messages": [f"Fixed {len(chosen)} section(s) the judges pointed at."],
    }
