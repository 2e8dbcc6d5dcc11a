"""The self-review result (spec 4.1) and the judge cascade's verdict."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class SelfReviewStatus(StrEnum):
    PASS = "PASS"
    PASS_WITH_FLAGS = "PASS_WITH_FLAGS"
    FIXED = "FIXED"
    REGENERATE = "REGENERATE"
    FLAG_TO_JUDGE = "FLAG_TO_JUDGE"


IssueType = Literal[
    "TRUNCATION",
    "LANGUAGE",
    "EMPTY",
    "SHORT_SECTION",
    "ALIGNMENT",
    "HALLUCINATION",
    "LOGIC",
    "HYGIENE",
]
Severity = Literal["CRITICAL", "FIXABLE", "COMPLEX", "INFO"]


class SelfReviewIssue(BaseModel):
    """One problem the self-reviewer (or the heuristics) found."""

    type: IssueType
    severity: Severity
    location: str = Field(default="", max_length=120)
    """A section heading or a short quoted phrase."""
    description: str = Field(default="", max_length=300)
    source: Literal["heuristics", "model"] = "model"
    """Who found it: code or the self-reviewer model."""


class SelfReviewResult(BaseModel):
    """The spec's `SelfReviewResult`: decision, issues, the self-fix, its cost."""

    passed: bool
    """PASS or PASS_WITH_FLAGS."""
    decision: SelfReviewStatus
    issues: list[SelfReviewIssue] = Field(default_factory=list)
    self_fix_applied: bool = False
    fixed_content: str | None = None
    """The full patched lesson when a fix was applied."""
    reasoning: str = ""
    overridden_by_code: str = ""
    """Why code replaced the model's decision ('' when it did not)."""
    not_reviewed: str = ""
    """Why the self-reviewer could not review the lesson ('' when it did): its answer stayed
    invalid after re-asks. The lesson then goes to the judges flagged (FLAG_TO_JUDGE)."""
    tokens_used: int = 0
    duration_ms: float = 0.0


Decision = Literal["accept", "fix", "regenerate", "escalate"]


class JudgeVote(BaseModel):
    """One judge's overall score as the cascade weighs it."""

    role: str
    score: float
    confidence: float
    passed: bool


class CascadeVerdict(BaseModel):
    """What the judges decided, and what it cost."""

    decision: Decision
    score: float
    passed: bool
    votes: list[JudgeVote] = Field(default_factory=list)
    reason: str = ""
    scores: dict[str, float] = Field(default_factory=dict)
    """Per-criterion scores of the final verdict (mean over the judges used)."""
