"""The evaluation result (spec 003, 3.2) plus what noema's workflows need per criterion."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict


def utc_now() -> str:
    """The current UTC time as ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class Issue(BaseModel):
    """One concrete problem: what is wrong and where in the content."""

    model_config = ConfigDict(frozen=True)

    what: str
    """What is wrong."""
    where: str = ""
    """Where it is (a heading, a quoted phrase, an item id); empty when it concerns the whole."""


class CriterionResult(BaseModel):
    """The outcome of one criterion: the model's score and reasons, code's verdict."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Criterion id."""
    name: str
    """Criterion name (for display)."""
    score: float = Field(ge=0, le=1)
    """The model's score, 0..1."""
    weight: float
    """The criterion's weight."""
    passing_threshold: float
    """The criterion's threshold."""
    is_critical: bool
    """Whether failing it fails the whole."""
    passed: bool
    """score >= passing_threshold (decided by code)."""
    rationale: str = ""
    """Why the model gave this score."""
    issues: list[Issue] = Field(default_factory=list)
    """Concrete problems found for this criterion."""
    no_remark: bool = False
    """The model's rationale had no words (`=0.0`): left out, the score kept."""


class EvaluationResult(BaseModel):
    """The standard result of every evaluation in noema.

    `passed` and `overall_score` are computed by `scoring.score_criteria`, never taken from
    the model's word.
    """

    passed: bool
    """Overall verdict: overall >= threshold and no critical criterion failed."""
    timestamp: str = Field(default_factory=utc_now)
    """When the evaluation was performed (UTC, ISO 8601)."""
    evaluator: str = "ai"
    """`ai`, `human`, or a model/role name."""
    overall_score: float = Field(ge=0, le=1)
    """Weighted mean of the criterion scores."""
    scores: dict[str, float] = Field(default_factory=dict)
    """Score per criterion id."""
    strengths: list[str] = Field(default_factory=list)
    """What the content does well."""
    weaknesses: list[str] = Field(default_factory=list)
    """Areas for improvement."""
    suggestions: list[str] = Field(default_factory=list)
    """Specific improvement recommendations."""
    feedback: str = ""
    """Overall assessment."""
    raw_response: object = None
    """The model's parsed answer, for debugging."""
    criteria: list[CriterionResult] = Field(default_factory=list)
    """Per-criterion detail (score, threshold, rationale, issues), in rubric order."""
    criteria_id: str = ""
    """Id of the rubric used."""
    criteria_version: str = ""
    """Version of the rubric used."""
    passing_threshold: float = 0.7
    """The overall threshold that was applied."""
    failed_critical: list[str] = Field(default_factory=list)
    """Ids of critical criteria below their threshold."""
    notes: list[str] = Field(default_factory=list)
    """Remarks on how the evaluation was made (e.g. that the default criteria stood in)."""

    def summary(self) -> str:
        """One line for messages and frontmatter: verdict, score, failing criteria."""
        verdict = "passed" if self.passed else "did not pass"
        text = f"{verdict} with {self.overall_score:.2f} (threshold {self.passing_threshold:.2f})"
        failing = [c.id for c in self.criteria if not c.passed]
        if self.failed_critical:
            text += f"; critical below threshold: {', '.join(self.failed_critical)}"
        elif failing:
            text += f"; below threshold: {', '.join(failing)}"
        return text


# -- the same result as a flow's state holds it (plain data; `EvaluationResult` validates it) --


class IssueData(TypedDict, total=False):
    what: str
    where: str


class CriterionResultData(TypedDict, total=False):
    """A `CriterionResult` as data."""

    id: str
    name: str
    score: float
    weight: float
    passing_threshold: float
    is_critical: bool
    passed: bool
    rationale: str
    issues: list[IssueData]


class EvaluationResultData(TypedDict, total=False):
    """An `EvaluationResult` as data (`result.model_dump(mode="json")`, what the evaluation
    node writes into the flow's result field)."""

    passed: bool
    timestamp: str
    evaluator: str
    overall_score: float
    scores: dict[str, float]
    strengths: list[str]
    weaknesses: list[str]
    suggestions: list[str]
    feedback: str
    raw_response: object
    criteria: list[CriterionResultData]
    criteria_id: str
    criteria_version: str
    passing_threshold: float
    failed_critical: list[str]
    notes: list[str]
