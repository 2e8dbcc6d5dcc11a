"""State of the lesson flow: the input, the lesson as it is built, reviewed and judged."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict, TypeVar

from pydantic import BaseModel, Field, model_validator

from core.evaluation import EvaluationFields, EvaluationResultData
from core.flows.lesson.heuristics.result import HeuristicReport
from core.flows.lesson.records import CascadeData, LessonDecisionData, PlanData, SelfReviewData
from core.flows.lesson.review_types import CascadeVerdict, SelfReviewResult
from core.reviews import Decision, Review

Mode = Literal["generate", "review"]
LessonStatus = Literal[
    "generating", "accepted", "needs_review", "needs_regeneration", "rejected", "failed"
]


V = TypeVar("V")


def merge_dicts(left: dict[str, V] | None, right: dict[str, V] | None) -> dict[str, V]:
    """Reducer of section drafts written by parallel expanders (a None right side clears)."""
    if right is None:
        return {}
    return {**(left or {}), **right}


class LessonInput(BaseModel):
    """What a run of the lesson flow starts with."""

    mode: Mode = "generate"
    """`generate` a lesson from a concept note, or `review` an existing lesson note."""
    concept: str = ""
    """The topic: a concept note's vault path or title (generate mode)."""
    note_path: str = ""
    """The lesson note to review (review mode)."""
    language: str = ""
    """Lesson language; empty: the concept note's, else settings."""
    objectives: list[str] = Field(default_factory=list, max_length=8)
    """Learning objectives the planner must keep (optional)."""
    sections: int = Field(0, ge=0, le=12)
    """Number of sections (0: settings)."""

    @model_validator(mode="after")
    def _target(self) -> LessonInput:
        if self.mode == "generate" and not self.concept.strip():
            raise ValueError("generate mode needs a concept")
        if self.mode == "review" and not self.note_path.strip():
            raise ValueError("review mode needs a note_path")
        return self


class LessonState(EvaluationFields, total=False):
    """The full state of one lesson run."""

    mode: Mode
    """generate or review (input)."""
    concept: str
    """The concept as given (input)."""
    note_path: str
    """The reviewed note (input), later the written lesson note."""
    language: str
    """The lesson's language (resolved by the loader)."""
    objectives: list[str]
    """Learning objectives (input, then the planner's)."""
    sections: int
    """Requested number of sections (input)."""
    topic: str
    """The concept's title."""
    concept_path: str
    """Vault path of the concept note."""
    source_text: str
    """The source material: concept, related concepts, supporting quotes (note text)."""
    plan: PlanData
    """The planner's outline (`Plan` as a dict)."""
    drafts: Annotated[dict[str, str] | None, merge_dicts]
    """Section index (as str) -> expanded text, written by the parallel expanders."""
    regen_sections: list[int]
    """Sections the next expansion rewrites (all of them on a first pass or a regeneration)."""
    lesson: str
    """The lesson body (markdown) as it currently stands."""
    before_fix: str
    """The lesson before the last self-fix or targeted fix (for the diff)."""
    heuristics: dict[str, object]
    """The last `HeuristicReport` (as a dict, with `action`)."""
    self_review: SelfReviewData | None
    """The last `SelfReviewResult` (as a dict)."""
    self_fixes: int
    """Self-fixes applied so far."""
    regenerations: int
    """Regenerations (full or partial) so far."""
    judge_fixes: int
    """Targeted fixes after a judge verdict so far."""
    skip_self_review: bool
    """Set after a self-fix or a targeted fix: the checks run again, then straight to judging."""
    caught_by: str
    """`heuristics` or `self_review`: who first found a defect that needed action ('' none)."""
    judge_primary: EvaluationResultData | None
    """The first judge's `EvaluationResult`."""
    judge_primary_status: str
    judge_secondary: EvaluationResultData | None
    """The second judge's result (only when the first was not confident)."""
    judge_secondary_status: str
    judge_tiebreak: EvaluationResultData | None
    """The third judge's result (only when the two differed by more than the setting)."""
    judge_tiebreak_status: str
    cascade: CascadeData | None
    """The cascade's verdict (`CascadeVerdict` as a dict)."""
    decision: LessonDecisionData
    """The user's answer at an escalation (action, content)."""
    status: LessonStatus
    """The lesson's status (written to the note's frontmatter)."""
    lesson_path: str
    """Where the lesson note was written."""
    note_hash: str
    """Hash of the lesson note as read (review mode) or written."""


class SectionTask(TypedDict):
    """What `expand_section` gets (one `Send` per section to (re)write)."""

    index: int
    """0-based index of the section in the plan."""
    plan: PlanData
    """The plan (`Plan` as data)."""
    language: str
    source_text: str


# -- the review contract: the escalation the user decides ------------------------------------

LessonAction = Literal["accept", "regenerate", "judge", "edit", "reject"]


class LessonReview(Review):
    """What the escalation shows: the lesson and what the checks and judges said."""

    type: Literal["lesson_review"] = "lesson_review"
    title: str = ""
    lesson: str = ""
    cascade: CascadeVerdict | None = None
    """The judges' verdict, None before any judge."""
    self_review: SelfReviewResult | None = None
    heuristics: HeuristicReport | None = None
    actions: list[str] = ["accept", "regenerate", "judge", "edit", "reject"]


class LessonDecision(Decision):
    """The user's answer: accept, regenerate, judge again, edit (with the new text), reject."""

    action: LessonAction
    content: str = ""
    """The edited lesson (edit only)."""

    @model_validator(mode="after")
    def _edit_has_text(self) -> LessonDecision:
        if self.action == "edit" and not self.content.strip():
            raise ValueError("an edit needs the new text")
        return self
