"""Nodes of the rubric flow besides the evaluation itself (which comes from core.evaluation).

Every vault write goes through the vault writer with the hash read earlier, so a note the
user changed meanwhile is never overwritten (the run then ends with an error message).
Side effects (writes) live in their own nodes after the interrupts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from core.context import FlowContext
from core.degenerate import grounded
from core.diffs import unified_diff
from core.evaluation import EvaluationNodeOptions, EvaluationResult, resolve_criteria_path
from core.evaluation.node import progress
from core.evaluation.options import OptionChanges
from core.flows.rubric.prompts import (
    MAX_SUMMARY,
    RevisedNote,
    max_body_chars,
    revision_messages,
    revision_problems,
)
from core.flows.rubric.state import RevisionDecision, RevisionReview, RubricState
from core.problems import explain
from core.reviews import InvalidDecision
from local_llm import LLMError
from local_llm.schema import bounded_schema
from vault.writer import VaultWriter


def failure(message: str, detail: str = "") -> RubricState:
    """End the run with status `error`, a plain message and the technical detail."""
    return {
        "rubric_status": "error",
        "outcome": "failed",
        "is_interrupted": False,
        "errors": [f"rubric: {message}" + (f" ({detail})" if detail else "")],
        "messages": [f"Rubric review stopped: {message}."],
    }


def writer_of(runtime: Runtime[FlowContext]) -> VaultWriter | None:
    """The vault writer of the run, or None when no vault is configured."""
    vault = runtime.context.vault
    return vault.writer if vault is not None else None


def reindex(runtime: Runtime[FlowContext], path: str) -> None:
    """Tell the vault index about a note noema just wrote (when the handle has an index)."""
    refresh = getattr(getattr(runtime.context, "vault", None), "reindex", None)
    if callable(refresh):
        with contextlib.suppress(Exception):  # the index can be rebuilt; never fail a write for it
            refresh(path)


def user_criteria_dir(runtime: Runtime[FlowContext]) -> list[Path]:
    """The user's own criteria folder (`<data dir>/criteria`), searched before shipped files."""
    settings = getattr(runtime.context, "settings", None)
    return [settings.data_dir / "criteria"] if settings is not None else []


async def load_note(state: RubricState, runtime: Runtime[FlowContext]) -> RubricState:
    """Read the note and resolve the criteria; the first evaluation round begins."""
    writer = writer_of(runtime)
    if writer is None:
        return failure("no vault is configured")
    path = state.get("note_path", "")
    try:
        note = writer.read(path)
    except FileNotFoundError:
        return failure(f"the note {path} does not exist")
    except Exception as exc:  # path outside the vault, unreadable, binary
        return failure(f"the note {path} cannot be read", f"{type(exc).__name__}: {exc}")
    if not note.body.strip():
        return failure(f"the note {path} has no text to evaluate")
    criteria = state.get("criteria") or note_rubric(note.frontmatter) or "default"
    criteria_path = resolve_criteria_path(criteria, user_criteria_dir(runtime))
    return {
        "criteria": criteria,
        "note_title": note.title,
        "frontmatter_text": note.text[: note.body_start],
        "content": note.body,
        "note_hash": note.hash,
        "criteria_path": str(criteria_path),
        "round": 1,
        "max_rounds": runtime.context.settings.flows.rubric.max_rounds,
        "messages": [f"Evaluating {path} against the {criteria} criteria."],
    }


def note_rubric(frontmatter: Mapping[str, object]) -> str | None:
    """The rubric a note asks for in its frontmatter (`rubric: <name>`), if any."""
    value = frontmatter.get("rubric")
    return value.strip() if isinstance(value, str) and value.strip() else None


def edited_body(state: RubricState, content: object) -> dict[str, object]:
    """The human's edit replaces the body; it must be text (a ValueError asks again)."""
    if not isinstance(content, str) or not content.strip():
        raise ValueError("the edited note must be non-empty text")
    return {"content": content}


def evaluation_options() -> EvaluationNodeOptions[RubricState]:
    """The evaluation of the note body; criteria, timeout and threshold come per run."""

    def configure(state: RubricState, runtime: Runtime[FlowContext]) -> OptionChanges[RubricState]:
        rubric = runtime.context.settings.flows.rubric
        return {
            "criteria_path": state.get("criteria_path") or state.get("criteria") or "default",
            "timeout_s": rubric.timeout_s,
            "default_threshold": rubric.passing_threshold,
        }

    return EvaluationNodeOptions[RubricState](
        content_type="note",
        content_extractor=lambda s: s.get("content"),
        result_field="evaluation",
        status_field="rubric_status",
        apply_edit=edited_body,
        decision_field="decision",
        context_extractor=lambda s: f"The note is titled {s.get('note_title', '')!r}.",
        reraise_unanswered=True,  # a model that did not answer fails the run here (resumable)
        payload_extras=lambda s: {
            "note_path": s.get("note_path", ""),
            "round": s.get("round", 1),
            "max_rounds": s.get("max_rounds", 1),
        },
        configure=configure,
    )


def back_to_review(message: str, detail: str = "") -> RubricState:
    """A revision that could not be produced: the human chooses again."""
    update: RubricState = {
        "rubric_status": "awaiting_review",
        "proposed": "",
        "diff": "",
        "messages": [message],
    }
    if detail:
        update["errors"] = [f"rubric revision: {detail}"]
    return update


async def rewrite(state: RubricState, runtime: Runtime[FlowContext]) -> RubricState:
    """The model rewrites the body following the evaluation and the reviewer's feedback."""
    result = EvaluationResult.model_validate(state["evaluation"])
    body = state.get("content", "")
    feedback = (state.get("decision") or {}).get("feedback", "")
    schema = bounded_schema(
        RevisedNote, max_length={"body": max_body_chars(body), "summary": MAX_SUMMARY}
    )
    timeout = runtime.context.settings.flows.rubric.timeout_s
    progress(
        stage="revising",
        note=state.get("note_path", ""),
        message="the model is revising the note...",
    )
    try:
        call = runtime.context.llm.structured(
            revision_messages(state.get("note_title", ""), body, result, feedback),
            grounded(RevisedNote, lambda revised: revision_problems(revised, body)),
            role="default",
            json_schema=schema,
            timeout_s=timeout,
        )
        revised = await asyncio.wait_for(call, timeout)
    except TimeoutError:
        return back_to_review(
            f"The revision timed out after {timeout:g} s; choose again.", "timeout"
        )
    except LLMError as exc:
        return back_to_review(
            "The model could not produce a revision; choose again.", explain(exc).line
        )
    if revised.body.strip() == body.strip():
        return back_to_review("The model proposed no changes; choose again.")
    return {
        "proposed": revised.body,
        "proposal_summary": revised.summary,
        "diff": unified_diff(state.get("note_path", "note.md"), body, revised.body),
        "revision_accepted": None,
        "messages": ["A revision is ready for your review."],
    }


def parse_acceptance(value: object) -> bool | None:
    """accept -> True, reject -> False, anything else (not a `RevisionDecision`) -> None."""
    try:
        return RevisionDecision.parse(value).action == "accept"
    except InvalidDecision:
        return None


async def confirm_revision(state: RubricState) -> RubricState:
    """Show the diff; the human accepts (write, evaluate again) or rejects (back to review)."""
    title = state.get("note_title", "")
    shown = RevisionReview(
        note_path=state.get("note_path", ""),
        title=f"Proposed revision of {title}",
        description=state.get("proposal_summary") or "The model rewrote the note.",
        diff=state.get("diff", ""),
        proposed=state.get("proposed", ""),
    )
    value = interrupt(shown.payload())
    accepted = parse_acceptance(value)
    if accepted is None:
        return {
            "revision_accepted": None,
            "errors": [f"rubric revision: invalid answer {value!r}"],
            "messages": ["Please answer accept or reject."],
        }
    if not accepted:
        return {
            **back_to_review("Revision discarded; the evaluation is back for review."),
            "revision_accepted": False,
        }
    return {"revision_accepted": True}


def write_body(
    state: RubricState, runtime: Runtime[FlowContext], body: str
) -> tuple[str | None, str]:
    """Write frontmatter + body through the vault writer: (new hash, "") or (None, error)."""
    writer = writer_of(runtime)
    if writer is None:
        return None, "no vault is configured"
    try:
        text = state.get("frontmatter_text", "") + body
        new_hash = writer.write(state["note_path"], text, expected_hash=state["note_hash"])
    except Exception as exc:  # ConflictError, PathEscapeError, OSError
        return None, f"{type(exc).__name__}: {exc}"
    reindex(runtime, state["note_path"])
    return new_hash, ""


async def write_revision(state: RubricState, runtime: Runtime[FlowContext]) -> RubricState:
    """Write the accepted revision; the next round evaluates it."""
    new_hash, error = write_body(state, runtime, state.get("proposed", ""))
    if new_hash is None:
        return failure("the revision could not be written", error)
    return {
        "content": state["proposed"],
        "note_hash": new_hash,
        "proposed": "",
        "diff": "",
        "round": state.get("round", 1) + 1,
        "messages": ["Revision written to the vault; evaluating it again."],
    }


async def write_edit(state: RubricState, runtime: Runtime[FlowContext]) -> RubricState:
    """Write the human's edit (already in `content`); the next round evaluates it."""
    new_hash, error = write_body(state, runtime, state.get("content", ""))
    if new_hash is None:
        return failure("your edit could not be written", error)
    return {
        "note_hash": new_hash,
        "round": state.get("round", 1) + 1,
        "messages": ["Your edit was written to the vault."],
    }


async def approve_note(state: RubricState, runtime: Runtime[FlowContext]) -> RubricState:
    """Mark the note approved in its frontmatter, with a short evaluation summary."""
    writer = writer_of(runtime)
    result = EvaluationResult.model_validate(state["evaluation"])
    fields = {
        "review_status": "approved",
        "review_score": round(result.overall_score, 2),
        "review_criteria": f"{result.criteria_id}@{result.criteria_version}",
        "reviewed_at": result.timestamp,
        "review_summary": result.summary(),
    }
    try:
        if writer is None:
            raise ValueError("no vault is configured")
        new_hash = writer.set_frontmatter(
            state["note_path"], fields, expected_hash=state["note_hash"]
        )
    except Exception as exc:
        return failure("the approval could not be written", f"{type(exc).__name__}: {exc}")
    reindex(runtime, state["note_path"])
    return {
        "note_hash": new_hash,
        "outcome": "approved",
        "messages": [f"{state['note_path']} marked approved."],
    }


async def round_limit(state: RubricState) -> RubricState:
    """Stop: the note went through as many rounds as settings allow."""
    limit = state.get("max_rounds", 1)
    return {
        "outcome": "round_limit",
        "messages": [
            f"Stopped after {limit} evaluation rounds (flows.rubric.max_rounds); the note is not approved."
        ],
    }


async def revision_gate(state: RubricState) -> RubricState:
    """Where a `revise` decision arrives; `route_revise` checks the round limit."""
    return {}


async def record_failure(state: RubricState) -> RubricState:
    """The evaluation failed (its error is already in the state): mark the run's outcome."""
    return {"outcome": "failed"}


def route_after_load(state: RubricState) -> Literal["evaluate", "end"]:
    return "end" if state.get("rubric_status") == "error" else "evaluate"


def route_revise(state: RubricState) -> Literal["rewrite", "limit"]:
    """A revision starts a new round only while rounds are left."""
    return "limit" if state.get("round", 1) >= state.get("max_rounds", 1) else "rewrite"


def route_after_rewrite(state: RubricState) -> Literal["confirm", "review"]:
    return "review" if state.get("rubric_status") == "awaiting_review" else "confirm"


def route_after_confirm(state: RubricState) -> Literal["write", "review", "confirm"]:
    accepted = state.get("revision_accepted")
    return "write" if accepted is True else "review" if accepted is False else "confirm"


def route_after_write(state: RubricState) -> Literal["evaluate", "limit", "end"]:
    if state.get("rubric_status") == "error":
        return "end"
    return "limit" if state.get("round", 1) > state.get("max_rounds", 1) else "evaluate"
