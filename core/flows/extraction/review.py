"""The human review (2.1/2.2) and the reviewer's feedback (2.3).

The review node only interrupts and applies the reviewer's drops; every model call is in its
own node, so resuming never calls a model twice. The self-critique and refinement (1.2/1.3)
are in `critique`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from core.context import FlowContext
from core.flows.extraction.critique import revise
from core.flows.extraction.nodes import report, unchecked
from core.flows.extraction.proposal import Proposal, drop_items
from core.flows.extraction.records import (
    DecisionData,
    DropData,
    SkippedRecord,
)
from core.flows.extraction.report import build_report
from core.flows.extraction.revision import (
    FeedbackRevision,
)
from core.flows.extraction.state import ExtractionDecision, ExtractionState
from core.model_failures import skipped_entry
from core.reviews import InvalidDecision

# -- 2.1 / 2.2 ---------------------------------------------------------------------------------


def parse_decision(value: object) -> DecisionData:
    """The reviewer's answer as a valid `ExtractionDecision` (plain data), or `{"action":
    "invalid", "why": ...}` when it does not fit (the runtime refuses those before resuming;
    this keeps an answer given another way from failing the run)."""
    try:
        decision = ExtractionDecision.parse(value)
        drops: list[DropData] = [
            {"kind": d.kind, "id": d.id, "concept_id": d.concept_id, "quote_id": d.quote_id}
            for d in decision.drops
        ]
        return {"action": decision.action, "feedback": decision.feedback, "drops": drops}
    except InvalidDecision as exc:
        return {"action": "invalid", "feedback": "", "drops": [], "why": str(exc)}


def rounds_left(state: ExtractionState, runtime: Runtime[FlowContext]) -> int:
    return max(
        0,
        runtime.context.settings.flows.extraction.max_review_rounds - state.get("review_round", 0),
    )


async def review(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Step 2.1: interrupt with the report; 2.2: the decision, drops applied by code."""
    shown = build_report(state, runtime.context.settings.flows.extraction.max_review_rounds)
    decision = parse_decision(interrupt(shown.payload()))
    update: ExtractionState = {"decision": decision}
    messages = []
    if decision["drops"]:
        proposal, dropped = drop_items(
            Proposal.model_validate(state["proposal"]), decision["drops"]
        )
        update["proposal"] = proposal.model_dump(mode="json")
        messages += [f"Dropped {', '.join(dropped)}."] if dropped else []
    if decision["action"] == "invalid":
        messages.append(
            f"{decision['why']}. Answer approve, feedback (with text), drop (with items) or abort."
        )
    if decision["action"] == "feedback" and not rounds_left(state, runtime):
        messages.append("No feedback rounds are left: approve what stands, or abort.")
    if decision["action"] == "approve" and empty(update.get("proposal") or state["proposal"]):
        messages.append(
            "Nothing to commit: no concepts and no quote attributions. Give feedback, or abort "
            "(the source then stays unprocessed and can be extracted again)."
        )
    update["messages"] = messages
    update["review_notice"] = " ".join(messages)
    return update


def empty(proposal: Mapping[str, object]) -> bool:
    """A proposal that would write nothing but mark the source processed."""
    parsed = Proposal.model_validate(proposal)
    return not parsed.concepts and not any(e.quote_ids for e in parsed.existing)


def route_after_review(
    state: ExtractionState, runtime: Runtime[FlowContext]
) -> Literal["commit_store", "incorporate", "review", "aborted"]:
    """Approve (a proposal with something in it) -> commit; feedback while rounds are left ->
    incorporate; abort -> aborted; anything else -> the review again, with a message."""
    decision = state.get("decision")
    action = decision["action"] if decision else None
    if action == "approve" and not empty(state["proposal"]):
        return "commit_store"
    if action == "abort":
        return "aborted"
    if action == "feedback" and rounds_left(state, runtime):
        return "incorporate"
    return "review"


async def incorporate(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Call 2.3: the model follows the reviewer's feedback; concepts it adds go through
    1.1b-1.1e, then back to the review."""
    decision = state.get("decision")
    feedback = decision["feedback"] if decision else ""
    proposal, answer, error = await revise(
        state, runtime, f"Reviewer feedback:\n{feedback}", FeedbackRevision
    )
    round_no = state.get("review_round", 0) + 1
    notes: list[str] = []
    warnings: list[str] = []
    skipped: list[SkippedRecord] = []
    if answer is not None:
        notes = [f"Feedback round {round_no}: {answer.interpretation or answer.changes}".strip()]
        if answer.unresolved.strip():
            warnings = [f"unresolved feedback: {answer.unresolved}"]
    if error is not None:
        skipped = [
            skipped_entry(
                "2.3",
                f"feedback round {round_no}",
                error,
                "the extraction is unchanged; the round still counts",
            )
        ]
    report("2.3", f"feedback round {round_no} incorporated", round=round_no)
    return {
        "proposal": proposal.model_dump(mode="json"),
        "review_round": round_no,
        "messages": notes,
        "warnings": warnings,
        "skipped": skipped,
        "pending": unchecked(state, proposal),
        "return_to": "review",
        "review_notice": "",
    }


def aborted(state: ExtractionState) -> ExtractionState:
    report("2.2", "aborted by the reviewer")
    return {"outcome": "aborted", "messages": ["Extraction aborted; nothing was written."]}


def finish(state: ExtractionState) -> ExtractionState:
    """The end of a run that had nothing to do (already processed, no quotes)."""
    return {}
