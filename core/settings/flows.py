"""Per-workflow parameters. Each workflow owns its class here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.settings.sections import DOC


class ExtractionSettings(BaseModel):
    """Concept extraction (spec 002)."""

    model_config = DOC

    language: str = ""
    """Language of the concept notes (ISO 639-1). Empty: `vault.language` (by default the
    language of the vault's own notes)."""
    top_k: int = Field(50, ge=1, le=500)
    """How many existing concepts hybrid search hands to duplicate detection."""
    duplicate_checks: Literal["merged", "per_candidate"] = "merged"
    """`merged`: the duplicate checks of several candidates in one model call when they fit
    the budget; `per_candidate`: one call per candidate (the specification's design)."""
    concurrency: int = Field(4, ge=1, le=64)
    """How many per-candidate model calls (duplicates, relations) run at once."""
    queries_per_relation: int = Field(2, ge=1, le=5)
    """Search queries generated per relation type per novel concept."""
    max_critique_iterations: int = Field(3, ge=0, le=10)
    """Self-critique / refinement rounds before the human review."""
    max_review_rounds: int = Field(8, ge=1, le=50)
    """Feedback rounds a review may use; the review warns before the last one, and then
    offers approving what stands or aborting."""
    max_quotes_per_batch: int = Field(40, ge=1, le=1000)
    """At most this many quotes go into one candidate-extraction call (also bounded by the
    model's context budget); larger sources are extracted in batches and merged."""
    pool_size: int = Field(50, ge=1, le=500)
    """How many existing concepts relation search pools per novel concept."""
    name_similarity: float = Field(0.85, ge=0.5, le=1.0)
    """Existing concepts whose name is this close to a candidate's (fuzzy ratio of the
    accent- and case-folded names, 0..1), or an acronym of it, go to duplicate detection
    even when search does not find them."""
    timeout_s: float = Field(120.0, gt=0)
    """Timeout of the self-critique model call, in seconds."""
    recursion_limit: int = Field(200, ge=10)
    """LangGraph recursion limit for one run."""
    bulk_runs: int = Field(0, ge=0, le=64)
    """How many sources `noema extract --all` works on at once; 0:
    twice the slots of the default role's pool (2 without a pool), so a server never idles
    while a run is between its model calls."""


class NormalizationSettings(BaseModel):
    """Concept normalization (spec 000)."""

    model_config = DOC

    max_iterations: int = Field(8, ge=1, le=50)
    """Stop after this many generator/evaluator iterations."""
    min_new_merges: int = Field(3, ge=1)
    """Convergence: stop when fewer new unique merges than this appear..."""
    patience: int = Field(2, ge=1)
    """...for this many consecutive iterations."""
    strategy: Literal["auto", "full_list", "blocks"] = "auto"
    """`full_list` sends every name each iteration (the spec); `blocks` sends blocks of
    similar names (from the index's search); `auto` uses the full list when it fits the
    context budget, else blocks."""
    deterministic: bool = True
    """Find case, accent, punctuation and singular/plural variants in code first (no model)."""
    block_tokens: int = Field(1500, ge=100)
    """Token budget of the names in one block (kept under the model's context budget)."""
    neighbors: int = Field(5, ge=1, le=50)
    """How many search hits per name are considered when grouping similar names."""
    vector_similarity: float = Field(0.85, ge=0.0, le=1.0)
    """With stored concept embeddings, two concepts whose vectors are at least this close
    (cosine) are grouped too, so synonyms with no word in common meet in one block. Models
    differ in how close unrelated names score: raise it if blocks grow with unrelated names."""
    max_merges_per_call: int = Field(20, ge=1, le=200)
    """Most merges one generator answer may hold (bounds the schema)."""
    validation_batch: int = Field(8, ge=1, le=100)
    """Most merges one evaluator call judges."""
    recursion_limit: int = Field(100, ge=10)
    """LangGraph recursion limit for one run."""


class LessonSettings(BaseModel):
    """Lesson generation and self-review (spec 001)."""

    model_config = DOC

    language: str = ""
    """Lesson language when the topic note does not say. Empty: `vault.language` (by default
    the language of the vault's own notes)."""
    min_section_words: int = Field(50, ge=1)
    """Sections shorter than this are flagged to the judge."""
    max_self_fixes: int = Field(1, ge=0, le=5)
    """How many self-fix rounds the self-reviewer may apply."""
    max_regenerations: int = Field(1, ge=0, le=5)
    """How many full regenerations the router may request."""
    judge_confidence_accept: float = Field(0.8, ge=0, le=1)
    """A single judge whose confidence reaches this is accepted without a second judge."""
    judge_disagreement: float = Field(0.1, ge=0, le=1)
    """Two judges differing by more than this call a third as tie-break."""
    accept_threshold: float = Field(0.7, ge=0, le=1)
    """Judged score at or above this accepts the lesson."""
    fix_threshold: float = Field(0.5, ge=0, le=1)
    """Between this and accept: a targeted fix; below: regenerate or escalate."""
    max_judge_fixes: int = Field(1, ge=0, le=5)
    """How many targeted fixes after a judge verdict before escalating to the user."""
    section_count: int = Field(4, ge=1, le=12)
    """Sections the planner outlines when the run does not say."""
    section_max_chars: int = Field(1800, ge=200)
    """Upper bound on one expanded section (bounded in the model's schema)."""
    generation_max_tokens: int = Field(0, ge=0)
    """Completion token limit of generation calls (0: the role's own limit)."""
    related_limit: int = Field(8, ge=0)
    """Related concepts given to the planner as source material."""
    quote_limit: int = Field(12, ge=0)
    """Supporting quotes given as source material."""
    tiebreak_role: str = "judge"
    """Model role of the third judge that breaks a tie between `judge` and `judge_secondary`."""
    judge_timeout_s: float = Field(180.0, gt=0)
    """Timeout of one judge call, in seconds."""
    recursion_limit: int = Field(100, ge=10)
    """LangGraph recursion limit for one run."""


class RubricSettings(BaseModel):
    """Rubric evaluation of any note (spec 003)."""

    model_config = DOC

    max_rounds: int = Field(5, ge=1, le=20)
    """How many evaluate/revise rounds a note may go through."""
    timeout_s: float = Field(180.0, gt=0)
    """Timeout of one evaluation model call (re-asks included), in seconds. The spec's 60 s
    is too short for a small local model on a CPU, which writes the answer slowly."""
    passing_threshold: float = Field(0.7, ge=0, le=1)
    """Default overall passing threshold when a criteria file does not set one."""
    recursion_limit: int = Field(60, ge=10)
    """LangGraph recursion limit for one run."""


class LearnerProfile(BaseModel):
    """Who is being tutored."""

    model_config = DOC

    name: str = "Learner"
    """How the tutor addresses the learner."""
    grade: str = "adult"
    """Grade or level (e.g. `8`, `university`, `adult`)."""
    preferred_style: str = "examples first"
    """Preferred teaching style."""
    language: str = "en"
    """Language of the tutoring conversation."""
    interests: list[str] = Field(default_factory=list)
    """Interests the tutor may use for examples."""


class TutorSettings(BaseModel):
    """Tutoring (spec 004)."""

    model_config = DOC

    max_replans: int = Field(3, ge=0, le=10)
    """How many times the plan may be rebuilt in one session."""
    pass_score: float = Field(0.7, ge=0, le=1)
    """An answer scored at or above this counts as correct."""
    correct_to_complete: int = Field(2, ge=1, le=10)
    """Correct answers on a step that complete it even if the evaluator did not say so."""
    failures_to_block: int = Field(3, ge=1, le=10)
    """Wrong answers on one step that block it (and trigger a replan)."""
    recent_messages: int = Field(8, ge=2, le=50)
    """How many recent messages of the conversation the agents see."""
    learner: LearnerProfile = Field(default_factory=LearnerProfile)
    """The learner profile (editable in the TUI)."""
    recursion_limit: int = Field(50, ge=10)
    """LangGraph recursion limit for one turn."""


class FlowsSettings(BaseModel):
    """Parameters of each workflow."""

    model_config = DOC

    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    """Concept extraction."""
    normalization: NormalizationSettings = Field(default_factory=NormalizationSettings)
    """Concept normalization."""
    lesson: LessonSettings = Field(default_factory=LessonSettings)
    """Lesson generation and review."""
    rubric: RubricSettings = Field(default_factory=RubricSettings)
    """Rubric evaluation."""
    tutor: TutorSettings = Field(default_factory=TutorSettings)
    """Tutoring."""
