"""State of the extraction flow: an input part (what the watcher queues) and the full state."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.evaluation import EvaluationFields, EvaluationResultData, EvaluationStatus
from core.flows.extraction.proposal import ExistingLink, NewConcept
from core.flows.extraction.records import (
    Candidate,
    CommitRecord,
    ConceptCard,
    CritiqueRound,
    DecisionData,
    Detection,
    Issue,
    KnownConcept,
    QuerySet,
    RelationSet,
    SkippedRecord,
    SourceMeta,
)
from core.model_failures import SkippedWork
from core.reviews import Decision, Review

Outcome = Literal["skipped", "no_quotes", "committed", "aborted"]


class ExtractionInput(BaseModel):
    """What a run is started with: `{"source": rel_path}` (exactly what ingest queues)."""

    source: str = Field(min_length=1)
    """Vault-relative path of the source note."""
    again: bool = False
    """Extract a source that was already processed (the user asked to extract it again)."""


V = TypeVar("V")


def merge_dicts(left: dict[str, V] | None, right: dict[str, V] | None) -> dict[str, V]:
    """Reducer: later keys win (parallel branches report what they learned about concepts)."""
    return {**(left or {}), **(right or {})}


class ExtractionState(EvaluationFields, total=False):
    """The full state of one extraction run."""

    source: str
    """Vault-relative path of the source note (input)."""
    again: bool
    """Extract even though the source is processed (input)."""
    source_title: str
    """The source's title (frontmatter title, else the file name)."""
    source_meta: SourceMeta
    """Author and category of the source, for the prompts."""
    quotes: list[dict[str, str]]
    """The source's quotes: `{"id", "text"}` in note order."""
    batches: list[list[str]]
    """Quote ids per candidate-extraction call, sized to the context budget."""
    candidates: Annotated[list[Candidate], operator.add]
    """Candidate concepts of call 1.1a, from every batch (accumulated)."""
    merged: list[Candidate]
    """Candidates merged across batches (same normalized title -> one candidate)."""
    extraction_notes: Annotated[list[str], operator.add]
    """What the model said about each batch of call 1.1a (accumulated; shown in the review)."""
    pending: list[Candidate]
    """Candidates going through duplicate detection now: those of 1.1a, then the concepts a
    refinement or the reviewer's feedback added. `key` is the new concept's UUID."""
    checked: list[str]
    """UUIDs of the new concepts that went through duplicate detection (1.1b)."""
    relating: list[str]
    """UUIDs of the novel concepts of the current pass that get relation search (1.1c-e)."""
    return_to: Literal["critique_checks", "review"]
    """Where a pass of 1.1b-1.1e ends: the self-critique (extraction, refinement) or the
    review (after the reviewer's feedback, which the critique does not second-guess)."""
    detections: Annotated[list[Detection], operator.add]
    """Duplicate detections of call 1.1b, one per candidate (accumulated)."""
    known: Annotated[dict[str, KnownConcept], merge_dicts]
    """Existing concepts seen by search: UUID -> {title, path, short_summary}."""
    query_sets: Annotated[list[QuerySet], operator.add]
    """Relation search queries of call 1.1c, one entry per novel concept (accumulated)."""
    pools: dict[str, list[str]]
    """Step 1.1d: novel concept UUID -> existing concept UUIDs it may relate to."""
    relation_sets: Annotated[list[RelationSet], operator.add]
    """Relations of call 1.1e, one entry per novel concept (accumulated)."""
    proposal: dict[str, object]
    """The current extraction (`proposal.Proposal` as data); replaced as a whole."""
    code_issues: list[Issue]
    """What code found in the current proposal (unattributed quotes, disconnected or
    wrong-language concepts, unknown ids)."""
    critique: EvaluationResultData
    """The latest self-critique (`EvaluationResult` as data)."""
    critique_status: EvaluationStatus
    """Status of the self-critique evaluation."""
    critique_round: int
    """Self-critiques done so far."""
    critique_log: Annotated[list[CritiqueRound], operator.add]
    """Every self-critique: round, verdict, scores, issues, suggestions (accumulated)."""
    review_round: int
    """Feedback rounds the human has used."""
    decision: DecisionData
    """The human's latest decision: action, feedback, drops."""
    review_notice: str
    """What the review said about the last answer (a refused approval, no rounds left)."""
    warnings: Annotated[list[str], operator.add]
    """Warnings for the reviewer (accumulated)."""
    skipped: Annotated[list[SkippedRecord], operator.add]
    """Work a fallback replaced because the model's answer stayed invalid after re-asks
    (`core.model_failures.skipped_entry`); the review shows it first (accumulated)."""
    commit: CommitRecord
    """The commit plan (what the store got and what the vault gets), once committed."""
    written: list[str]
    """Vault paths written by the commit."""
    outcome: Outcome
    """How the run ended."""


class BatchTask(TypedDict):
    """What `extract_batch` gets (one `Send` per batch of quotes, call 1.1a)."""

    source_title: str
    source_meta: SourceMeta
    quotes: list[dict[str, str]]
    """The batch's quotes: `{"id", "text"}`."""
    batch: int
    """1-based number of the batch."""
    total: int
    """How many batches the source has."""


class DuplicateTask(TypedDict):
    """What `detect_duplicate` gets (one `Send` per pending candidate, call 1.1b)."""

    candidate: Candidate
    """The candidate (`key` is its new concept's UUID)."""
    total: int
    """How many candidates are checked in this pass."""


class RelationQueryTask(TypedDict):
    """What `relation_queries` gets (one `Send` per novel concept, call 1.1c)."""

    concept: ConceptCard
    """The concept's card: id, title, summaries."""
    total: int


class RelateTask(TypedDict):
    """What `relate` gets (one `Send` per novel concept with candidates, call 1.1e)."""

    concept: ConceptCard
    others: list[tuple[str, str]]
    """(concept id, card) of the concepts it may relate to."""
    total: int


# -- the review contract (spec 4.2): what the interrupt shows, what the reviewer answers ------


class QuoteRef(BaseModel):
    id: str
    text: str = ""


class ReviewConcept(NewConcept):
    """A new concept as the review shows it: with the text of its quotes."""

    quotes: list[QuoteRef] = []


class ReviewRelation(BaseModel):
    """A proposed relation with both ends' titles and its inverse."""

    id: str
    source_id: str
    source_title: str = ""
    type: str
    target_id: str
    target_title: str = ""
    inverse_type: str = ""
    target_is_new: bool = False
    explanation: str = ""
    confidence: float = 1.0


class AttributedConcept(BaseModel):
    id: str
    title: str
    existing: bool = False
    """An existing concept the quote is handed to (else a new one)."""


class Attribution(BaseModel):
    """One quote and the concepts it goes to (`multi`: more than one)."""

    quote_id: str
    quote_text: str = ""
    concepts: list[AttributedConcept] = []
    multi: bool = False


class ExtractionReview(Review):
    """The interrupt payload of the extraction review (`core.flows.extraction.report`)."""

    type: Literal["extraction_review"] = "extraction_review"
    source: str = ""
    source_title: str = ""
    round: int = 0
    """Feedback rounds used."""
    max_rounds: int = 0
    rounds_left: int = 0
    round_notice: str = ""
    """The warning about feedback rounds ('' while more than one is left)."""
    notice: str = ""
    """What the review said about the last answer (a refused approval, no rounds left)."""
    concepts: list[ReviewConcept] = []
    duplicates: list[ExistingLink] = []
    """Candidates found to be existing concepts."""
    existing: list[ExistingLink] = []
    """Every quote handed to an existing concept."""
    relations: list[ReviewRelation] = []
    attributions: list[Attribution] = []
    unattributed: list[QuoteRef] = []
    disconnected: list[str] = []
    """Titles of new concepts without a relation."""
    warnings: list[str] = []
    critique_log: list[CritiqueRound] = []
    notes: list[str] = []
    skipped: list[SkippedWork] = []
    """Work a fallback replaced."""
    quote_count: int = 0


class Drop(BaseModel):
    """One item the reviewer drops: a concept or relation by `id`, or one quote of a concept
    (`kind="attribution"`, `concept_id` and `quote_id`)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["concept", "relation", "attribution"]
    id: str = ""
    concept_id: str = ""
    quote_id: str = ""

    @model_validator(mode="after")
    def _names_its_item(self) -> Drop:
        if self.kind == "attribution" and not (self.concept_id and self.quote_id):
            raise ValueError("an attribution drop needs concept_id and quote_id")
        if self.kind != "attribution" and not self.id:
            raise ValueError(f"a {self.kind} drop needs its id")
        return self


class ExtractionDecision(Decision):
    """The reviewer's answer: approve, feedback (with text), drop (with items) or abort.
    Drops may come with any action (they are applied first)."""

    action: Literal["approve", "feedback", "drop", "abort"]
    feedback: str = ""
    drops: list[Drop] = []

    @model_validator(mode="after")
    def _feedback_has_text(self) -> ExtractionDecision:
        self.feedback = self.feedback.strip()
        if self.action == "feedback" and not self.feedback:
            if not self.drops:
                raise ValueError("feedback needs text")
            self.action = "drop"
        if self.action == "drop" and not self.drops:
            raise ValueError("drop needs the items to drop")
        return self
