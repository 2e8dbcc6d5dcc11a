"""State of the extraction flow: an input part (what the watcher queues) and the full state."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from core.evaluation import EvaluationFields, EvaluationStatus

Outcome = Literal["skipped", "no_quotes", "committed", "aborted", "round_limit"]


class ExtractionInput(BaseModel):
    """What a run is started with: `{"source": rel_path}` (exactly what ingest queues)."""

    source: str = Field(min_length=1)
    """Vault-relative path of the source note."""
    again: bool = False
    """Extract a source already processed once more (the user asked: `extract --again`)."""


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: later keys win (parallel branches report what they learned about concepts)."""
    return {**(left or {}), **(right or {})}


class ExtractionState(EvaluationFields, total=False):
    """The full state of one extraction run."""

    source: str
    """Vault-relative path of the source note (input)."""
    again: bool
    """Input: extract it even though it is processed."""
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
    warnings: Annotated[list[str], operator.add]
    """Warnings for the reviewer (accumulated)."""
    commit: dict[str, Any]
    """The commit plan (what the store got and what the vault gets), once committed."""
    written: list[str]
    """Vault paths written by the commit."""
    outcome: Outcome
    """How the run ended."""
