"""The human review of an evaluation (spec 003, 4.2 and 5.2).

The review node calls `interrupt()` first and does everything else after it, so the work
it does on resume happens once. The resume value is a `ReviewDecision` (or a dict of one):

    {"action": "approve"}
    {"action": "revise", "feedback": "say more about X"}
    {"action": "edit", "content": "<the human's version>"}

An unreadable decision leaves the status at `awaiting_review` with a message, and the
router sends the graph back to the review, which asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import ConfigDict, model_validator

from core.evaluation.options import EvaluationNode, EvaluationNodeOptions, S, Update
from core.evaluation.prompts import human_readable
from core.evaluation.result import EvaluationResult
from core.reviews import Decision, InvalidDecision, Review

if TYPE_CHECKING:
    from core.context import FlowContext


class EvaluationReview(Review):
    """What the review interrupt shows (spec 4.2); a flow's `payload_extras` ride along as
    extra fields (the rubric's `RubricReview` names them)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["evaluation_review"] = "evaluation_review"
    content_type: str = ""
    evaluation: EvaluationResult
    title: str = ""
    description: str = ""


class ReviewDecision(Decision):
    """What the human decided about an evaluation."""

    action: Literal["approve", "revise", "edit"]
    """approve: accept; revise: send back to the generator; edit: replace with `content`."""
    feedback: str = ""
    """Free text for the generator (revise) or the record (approve, edit)."""
    content: object = None
    """The human's version of the content (edit only)."""

    @model_validator(mode="after")
    def _edit_has_content(self) -> ReviewDecision:
        if self.action == "edit" and (self.content is None or self.content == ""):
            raise ValueError("an edit needs the edited content")
        return self


def review_metadata(
    options: EvaluationNodeOptions[S], result: EvaluationResult, state: S
) -> dict[str, object]:
    """The interrupt metadata of spec 4.2 (plus any extras the flow adds), as plain data
    (`EvaluationReview.model_validate` reads it back)."""
    label = human_readable(options.content_type)
    metadata: dict[str, object] = {
        "type": "evaluation_review",
        "content_type": options.content_type,
        "evaluation": result.model_dump(mode="json"),
        "actions": options.actions,
        "title": f"{label} Evaluation Review",
        "description": f"Review the evaluation of the {label.lower()}.",
    }
    if options.payload_extras is not None:
        metadata.update(options.payload_extras(state))
    return EvaluationReview.model_validate(metadata).payload()


def parse_decision(value: object, options: EvaluationNodeOptions[S]) -> ReviewDecision:
    """The resume value as a decision (`InvalidDecision` when it does not fit); a bare
    action string is accepted too."""
    decision = ReviewDecision.parse(value)
    if decision.action not in options.actions:
        raise InvalidDecision(
            f"action {decision.action!r} is not offered here; choose one of {options.actions}"
        )
    return decision


def decision_update(
    options: EvaluationNodeOptions[S], decision: ReviewDecision, state: S
) -> Update:
    """The state transition for the human's action."""
    label = human_readable(options.content_type)
    update: Update = {"is_interrupted": False, "interrupt_metadata": None}
    if options.decision_field:
        update[options.decision_field] = decision.model_dump(mode="json")
    if decision.action == "approve":
        update[options.status_field] = "approved"
        update["messages"] = [f"{label} approved."]
    elif decision.action == "revise":
        update[options.status_field] = "revision_requested"
        note = f" Feedback: {decision.feedback}" if decision.feedback else ""
        update["messages"] = [f"{label} sent back for revision.{note}"]
    else:
        if options.apply_edit is not None:
            update.update(options.apply_edit(state, decision.content))
        else:
            update[str(options.content_field)] = decision.content
        update[options.status_field] = "edited"
        for dependent in options.dependents:
            update[dependent] = "stale"
        stale = f" Marked stale: {', '.join(options.dependents)}." if options.dependents else ""
        update["messages"] = [f"{label} replaced by your edit.{stale}"]
    return update


def make_review_node(base: EvaluationNodeOptions[S]) -> EvaluationNode[S]:
    """The review node: interrupt with the metadata, then apply the decision."""

    async def review(state: S, runtime: Runtime[FlowContext]) -> Update:
        try:
            options = base.for_run(state, runtime)
        except Exception:  # the judge already reported a broken `configure`; review plainly
            options = base
        metadata = state.get("interrupt_metadata")
        if not metadata:
            result = EvaluationResult.model_validate(state[options.result_field])
            metadata = review_metadata(options, result, state)
        value = interrupt(metadata)
        try:
            decision = parse_decision(value, options)
            return decision_update(options, decision, state)
        except (ValueError, TypeError) as exc:  # InvalidDecision, or an edit that cannot apply
            reason = str(exc)
            return {
                options.status_field: "awaiting_review",
                "errors": [f"{options.content_type} review: {reason}"],
                "messages": [
                    f"That review answer was not understood ({reason}); please choose again."
                ],
            }

    return review
