"""The plain-data records a lesson run keeps in its state (checkpointed as JSON).

Each mirrors the model it is dumped from (`Plan`, `SelfReviewResult`, `CascadeVerdict`, the
`HeuristicReport`) as the nodes and the note's frontmatter read it; the judges' results are
`core.evaluation.EvaluationResultData`.
"""

from __future__ import annotations

from typing import TypedDict


class PlannedSectionData(TypedDict):
    title: str
    goal: str


class PlanData(TypedDict):
    """A `prompts.Plan` as data."""

    title: str
    objectives: list[str]
    sections: list[PlannedSectionData]


class SelfReviewIssueData(TypedDict, total=False):
    """A `review_types.SelfReviewIssue` as data."""

    type: str
    severity: str
    location: str
    description: str
    source: str


class SelfReviewData(TypedDict, total=False):
    """A `review_types.SelfReviewResult` as data."""

    passed: bool
    decision: str
    issues: list[SelfReviewIssueData]
    self_fix_applied: bool
    fixed_content: str | None
    reasoning: str
    overridden_by_code: str
    not_reviewed: str
    tokens_used: int
    duration_ms: float


class JudgeVoteData(TypedDict):
    role: str
    score: float
    confidence: float
    passed: bool


class CascadeData(TypedDict, total=False):
    """A `review_types.CascadeVerdict` as data."""

    decision: str
    score: float
    passed: bool
    votes: list[JudgeVoteData]
    reason: str
    scores: dict[str, float]


class LessonDecisionData(TypedDict, total=False):
    """The user's answer at an escalation (`state.LessonDecision` as data); `action` is
    `invalid` for an answer that does not fit."""

    action: str
    content: str
