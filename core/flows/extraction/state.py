"""State of the extraction flow: an input part (what the watcher queues) and the full state."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from core.evaluation import EvaluationFields, EvaluationStatus

Outcome = Literal["skipped", "no_quotes", "committed", "aborted"]


class ExtractionInput(BaseModel):
    """What a run is started with: `{"source": rel_path}` (exactly what ingest queues)."""

    source: str = Field(min_length=1)
    """Vault-relative path of the source note."""
    again: bool = False
    """Extract a source that was already processed (the user asked to extract it again)."""


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
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
    source_meta: dict[str, Any]
    """Author and category of the source, for the prompts."""
    quotes: list[dict[str, str]]
    """The source's quotes: `{"id", "text"}` in note order."""
    batches: list[list[str]]
    """Quote ids per candidate-extraction call, sized to the context budget."""
    candidates: Annotated[list[dict[str, Any]], operator.add]
    """Candidate concepts of call 1.1a, from every batch (accumulated)."""
    merged: list[dict[str, Any]]
    """Candidates merged across batches (same normalized title -> one candidate)."""
    extraction_notes: Annotated[list[str], operator.add]
    """What the model said about each batch of call 1.1a (accumulated; shown in the review)."""
    pending: list[dict[str, Any]]
    """Candidates going through duplicate detection now: those of 1.1a, then the concepts a
    refinement or the reviewer's feedback added. `key` is the new concept's UUID."""
    checked: list[str]
    """UUIDs of the new concepts that went through duplicate detection (1.1b)."""
    relating: list[str]
    """UUIDs of the novel concepts of the current pass that get relation search (1.1c-e)."""
    return_to: Literal["critique_checks", "review"]
    """Where a pass of 1.1b-1.1e ends: the self-critique (extraction, refinement) or the
    review (after the reviewer's feedback, which the critique does not second-guess)."""
    detections: Annotated[list[dict[str, Any]], operator.add]
    """Duplicate detections of call 1.1b, one per candidate (accumulated)."""
    known: Annotated[dict[str, dict[str, Any]], merge_dicts]
    """Existing concepts seen by search: UUID -> {title, path, short_summary}."""
    query_sets: Annotated[list[dict[str, Any]], operator.add]
    """Relation search queries of call 1.1c, one entry per novel concept (accumulated)."""
    pools: dict[str, list[str]]
    """Step 1.1d: novel concept UUID -> existing concept UUIDs it may relate to."""
    relation_sets: Annotated[list[dict[str, Any]], operator.add]
    """Relations of call 1.1e, one entry per novel concept (accumulated)."""
    proposal: dict[str, Any]
    """The current extraction (`proposal.Proposal` as data); replaced as a whole."""
    code_issues: list[dict[str, Any]]
    """What code found in the current proposal (unattributed quotes, disconnected or
    wrong-language concepts, unknown ids)."""
    critique: dict[str, Any]
    """The latest self-critique (`EvaluationResult` as data)."""
    critique_status: EvaluationStatus
    """Status of the self-critique evaluation."""
    critique_round: int
    """Self-critiques done so far."""
    critique_log: Annotated[list[dict[str, Any]], operator.add]
    """Every self-critique: round, verdict, scores, issues, suggestions (accumulated)."""
    review_round: int
    """Feedback rounds the human has used."""
    decision: dict[str, Any]
    """The human's latest decision: action, feedback, drops."""
    review_notice: str
    """What the review said about the last answer (a refused approval, no rounds left)."""
    warnings: Annotated[list[str], operator.add]
    """Warnings for the reviewer (accumulated)."""
    skipped: Annotated[list[dict[str, Any]], operator.add]
    """Work a fallback replaced because the model's answer stayed invalid after re-asks
    (`core.model_failures.skipped_entry`); the review shows it first (accumulated)."""
    commit: dict[str, Any]
    """The commit plan (what the store got and what the vault gets), once committed."""
    written: list[str]
    """Vault paths written by the commit."""
    outcome: Outcome
    """How the run ended."""
