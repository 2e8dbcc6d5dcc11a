"""The plain-data records an extraction run keeps in its state (checkpointed as JSON).

Each is read off what the nodes put in the state: a candidate concept of call 1.1a, a
duplicate detection of 1.1b, the queries and relations of 1.1c and 1.1e, an existing concept
seen by search, an issue code or the critique found, a round of the critique log, the
reviewer's decision and the commit. The review payload itself is `state.ExtractionReview`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, Required

from typing_extensions import TypedDict  # pydantic reads TypedDicts of typing_extensions < 3.12

from core.evaluation import EvaluationStatus


class SourceMeta(TypedDict, total=False):
    """Author and category of the source, for the prompts."""

    author: str | None
    category: str | None


class ConceptText(TypedDict, total=False):
    """What the prompts show of a concept: its title and, when it has them, its summaries."""

    title: Required[str]
    short_summary: str
    concept: str


class ConceptCard(ConceptText):
    """A new concept as 1.1c and 1.1e see it (`id` is its UUID)."""

    id: str


class Candidate(ConceptText, total=False):
    """A candidate concept of call 1.1a; `key` (its new concept's UUID) once merged."""

    quote_ids: Required[list[str]]
    summary: str
    analysis: str
    rationale: str
    batch: int
    key: str


class ConceptRow(TypedDict):
    """An existing concept as the index stores it."""

    entity_id: str
    title: str
    aliases_json: str
    path: str
    short_summary: str


class ExistingRow(TypedDict):
    """An existing concept a commit links to or edits."""

    entity_id: str
    path: str
    title: str


class ExistingMatch(TypedDict):
    """The existing concept a duplicate verdict names."""

    entity_id: str
    title: str


class Detection(TypedDict):
    """The duplicate verdict of call 1.1b on one candidate."""

    candidate: str
    """The candidate's key."""
    duplicate_of: str | None
    existing_title: str
    confidence: float
    reasoning: str
    decided_by: str
    """`match` (same name), `search` (nothing similar), `model` or `error`."""


class KnownConcept(TypedDict):
    """An existing concept seen by search."""

    title: str
    path: str
    short_summary: str


class QuerySet(TypedDict):
    """The search queries of call 1.1c for one new concept, per relation type."""

    concept_id: str
    queries: dict[str, list[str]]


class RelationSet(TypedDict):
    """The relations of call 1.1e from one new concept (`ProposedRelation`s as data)."""

    concept_id: str
    relations: list[dict[str, object]]


class Issue(TypedDict):
    """What code (with `severity`) or the critique found wrong, and where."""

    criterion: str
    what: str
    where: str
    severity: NotRequired[str]


class CritiqueRound(TypedDict, total=False):
    """One round of the self-critique log (what the review shows; every key optional, as the
    review reads a log checkpointed by an older version)."""

    round: int
    code_issues: list[Issue]
    status: EvaluationStatus | None
    passed: bool | None
    """None: the critique was not done (its answer stayed invalid)."""
    overall: float
    failing: list[str]
    scores: dict[str, float]
    summary: str
    feedback: str
    suggestions: list[str]
    issues: list[Issue]
    stalled: bool
    """The refinement before it improved nothing the critique measures: the loop ends."""


class DropData(TypedDict):
    """One drop of the reviewer (`state.Drop` as data)."""

    kind: Literal["concept", "relation", "attribution"]
    id: str
    concept_id: str
    quote_id: str


class DecisionData(TypedDict):
    """The reviewer's latest answer (`state.ExtractionDecision` as data); `action` is
    `invalid` (with `why`) for an answer that does not fit."""

    action: str
    feedback: str
    drops: list[DropData]
    why: NotRequired[str]


class CommitRecord(TypedDict):
    """What step 3.1 committed: the run and the vault paths its plan creates and edits."""

    run_id: str
    create: list[str]
    edit: list[str]


SkippedRecord = Mapping[str, object]
"""Work a fallback replaced (`core.model_failures.skipped_entry`): only shown, via the review."""
