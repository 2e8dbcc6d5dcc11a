"""State of the rubric flow: which note, against which rubric, and where the review stands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypedDict

from pydantic import BaseModel, Field

from core.evaluation import (
    EvaluationFields,
    EvaluationResultData,
    EvaluationReview,
    EvaluationStatus,
)
from core.reviews import Decision, Review

Outcome = Literal["approved", "round_limit", "failed"]


class RubricInput(BaseModel):
    """What a run of the rubric flow is started with."""

    note_path: str = Field(min_length=1)
    """Vault-relative path of the note to evaluate."""
    criteria: str | None = Field(default=None, min_length=1)
    """Criteria name (a file in the criteria folders) or a path to a criteria file; None
    means the note's own `rubric:` frontmatter key, else `default`."""


class ReviewDecisionData(TypedDict, total=False):
    """The human's review decision as the evaluation framework keeps it (`ReviewDecision`
    dumped: action, feedback, and the edited content)."""

    action: str
    feedback: str
    content: object


class RubricState(EvaluationFields, total=False):
    """The full state of one rubric run."""

    note_path: str
    """Vault-relative path of the note (input)."""
    criteria: str | None
    """Criteria name or path as given (input); load_note fills in the one used."""
    criteria_path: str
    """The criteria file it resolved to (the default file when it did not exist)."""
    note_title: str
    """The note's title (file name)."""
    frontmatter_text: str
    """The note's text before the body (its frontmatter block), kept byte for byte."""
    content: str
    """The note's body: what is evaluated, revised and edited."""
    note_hash: str
    """Hash of the note as last read or written; every write is checked against it."""
    rubric_status: EvaluationStatus
    """Status of the evaluation (spec 5.2)."""
    evaluation: EvaluationResultData
    """The latest `EvaluationResult` (as a dict)."""
    decision: ReviewDecisionData
    """The human's latest review decision (action, feedback, content)."""
    round: int
    """Evaluations done so far in this run."""
    max_rounds: int
    """Limit on evaluations in this run (settings.flows.rubric.max_rounds)."""
    proposed: str
    """The model's proposed revision of the body, waiting for acceptance."""
    proposal_summary: str
    """What the model says it changed."""
    diff: str
    """Unified diff between the current body and the proposal."""
    revision_accepted: bool | None
    """The human's answer about the latest proposal (None: not answered yet)."""
    outcome: Outcome
    """How the run ended."""


# -- the review contracts: the evaluation review (core.evaluation) and the revision's diff ----


class RubricReview(EvaluationReview):
    """The evaluation review of a note (`payload_extras`: which note, which round)."""

    note_path: str = ""
    round: int = 1
    max_rounds: int = 1


class RevisionReview(Review):
    """The model's proposed revision of the note, shown as a diff."""

    type: Literal["revision_review"] = "revision_review"
    note_path: str = ""
    title: str = ""
    description: str = ""
    diff: str = ""
    proposed: str = ""
    """The revised body."""
    actions: list[str] = ["accept", "reject"]


class RevisionDecision(Decision):
    """Accept the revision (write it, evaluate again) or reject it (back to the review)."""

    action: Literal["accept", "reject"]


def review_of(payload: Mapping[str, object]) -> RubricReview | RevisionReview:
    """The payload of whichever review the rubric flow waits at, as its model."""
    if payload.get("type") == "revision_review":
        return RevisionReview.model_validate(payload)
    return RubricReview.model_validate(payload)
