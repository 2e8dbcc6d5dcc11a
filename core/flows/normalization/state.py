"""State of the normalization flow (spec 000) and the progress event it streams."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Literal, TypedDict

from pydantic import BaseModel, Field

from core.flows.normalization.accumulate import Merge

Phase = Literal["generation", "validation", "complete"]


class NormalizationInput(BaseModel):
    """What a normalization run starts with: nothing is required."""

    strategy: Literal["auto", "full_list", "blocks"] | None = None
    """Override of settings.flows.normalization.strategy for this run."""


class ConceptData(TypedDict):
    """A `core.merges.catalog.ConceptInfo` as data (`ConceptInfo(**data)` reads it back)."""

    id: str
    title: str
    path: str
    aliases: list[str]
    short_summary: str
    summary: str
    links: int
    language: str


class NormalizationState(TypedDict, total=False):
    """The full state of one normalization run."""

    strategy: str | None
    """The input's strategy override."""
    concepts: list[ConceptData]
    """Every concept (ConceptInfo as a dict), read from the index at the start."""
    units: list[list[str]]
    """Groups of similar concept ids (packed into blocks per iteration); empty when the full
    list is sent each iteration."""
    active_units: list[int]
    """Units to send in the next iteration."""
    iteration: int
    """Generator/evaluator iterations done (0 before the first)."""
    new_merge_batch: list[Merge]
    """This iteration's proposals that are neither weak nor already accepted."""
    all_merges: dict[str, Merge]
    """Every accepted merge so far, by order-insensitive key."""
    weak_merges: dict[str, Merge]
    """Every weak merge ever seen (this run and earlier ones), by key: never accepted."""
    latest_merges: list[Merge]
    """The new unique merges of the last iteration."""
    new_unique_merges: int
    """How many keys the last iteration added to `all_merges`."""
    new_unique_merges_trend: Annotated[list[int], operator.add]
    """`new_unique_merges` per iteration (the convergence rule reads it)."""
    converged: bool
    """The convergence rule says stop (set by the evaluator)."""
    deterministic_count: int
    """Merges found by code (case, accent, punctuation, plural) before any model call."""
    review_id: str
    """The stored review, once the run is complete."""
    skipped: Annotated[list[Mapping[str, object]], operator.add]
    """Model calls whose answer stayed invalid after re-asks, and what that cost
    (`core.model_failures.skipped_entry`): the run goes on and ends partial, saying so. A call
    the model did not answer at all fails the run at that step instead (resumable)."""
    messages: Annotated[list[str], operator.add]
    """Activity lines, as the progress events carried them."""


class NormalizationStreamEvent(BaseModel):
    """The progress event of spec 000 (`NormalizationStreamEvent`) plus the weak count."""

    node: str
    phase: Phase
    agent_activity: str
    """What the agents are doing, in a sentence."""
    message: str = ""
    """Same as agent_activity (the runtime's generic progress field)."""
    iteration: int = 0
    merges_found: int = 0
    """New unique merges of the latest iteration."""
    total_merges: int = 0
    """Accepted merges so far."""
    latest_merges: list[dict[str, object]] = Field(default_factory=list)
    weak_count: int = 0
    """Weak merges known (rejected ever)."""
    latest_weak: list[dict[str, object]] = Field(default_factory=list)
    """Merges the evaluator judged weak in the latest iteration, with their reason."""
    new_unique_merges_trend: list[int] = Field(default_factory=list)
    requires_review: bool = False
    review_id: str | None = None
    skipped: list[dict[str, object]] = Field(default_factory=list)
    """Model calls whose work is missing from the result (invalid answers), so far."""
