"""The extraction proposal: new concepts, quotes handed to existing concepts, relations.

The proposal is replaced as a whole by the nodes that change it (aggregation, refinement,
feedback, drops); it is stored in the state as plain data (`Proposal.model_dump()`).
Relations are kept in one direction; their inverses (RELATION_MAP) are added at commit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, Field, field_validator

from core.domain import RELATION_MAP, RelationType, new_concept_id
from core.flows.extraction.prompts import MAX_TITLE
from core.flows.extraction.records import DropData
from core.flows.extraction.sanity import says_something
from core.flows.extraction.text import whole_words


class NewConcept(BaseModel):
    """A novel concept to create."""

    id: str = Field(default_factory=new_concept_id)
    """Its UUID (the note's entity_id once written)."""
    title: str
    """The concept's name (the note's file name), never cut mid-word."""
    short_summary: str = ""
    """At most 30 words."""
    summary: str = ""
    """At most 100 words."""
    concept: str = ""
    analysis: str = ""
    quote_ids: list[str] = Field(default_factory=list)
    """Quotes that support it (SUPPORTS edges quote -> concept)."""
    rationale: str = ""
    """Why it was extracted from these quotes."""

    @field_validator("title")
    @classmethod
    def _whole_words(cls, value: str) -> str:
        return whole_words(value, MAX_TITLE)


class ExistingLink(BaseModel):
    """Quotes handed to an existing concept (a duplicate candidate's quotes)."""

    concept_id: str
    title: str
    quote_ids: list[str] = Field(default_factory=list)
    candidate: str = ""
    """Title of the candidate found to duplicate it ('' when linked by refinement)."""
    confidence: float = 1.0
    reasoning: str = ""
    decided_by: str = "model"
    """`match` (exact/normalized title or alias, no model) or `model`."""


class ProposedRelation(BaseModel):
    """A typed edge from a new concept to a new or existing concept."""

    source_id: str
    type: RelationType
    target_id: str
    explanation: str = ""
    confidence: float = 1.0

    @property
    def pair_key(self) -> tuple[str, str, str]:
        """Identity of the edge and its inverse together (A PART_OF B == B HAS_PART A)."""
        forward = (self.source_id, self.type.value, self.target_id)
        backward = (self.target_id, RELATION_MAP[self.type].value, self.source_id)
        return min(forward, backward)

    @property
    def id(self) -> str:
        """A short stable id (what a reviewer drops)."""
        digest = hashlib.blake2b("|".join(self.pair_key).encode(), digest_size=4).hexdigest()
        return f"r-{digest}"


class Proposal(BaseModel):
    """The extraction as it stands."""

    concepts: list[NewConcept] = Field(default_factory=list)
    existing: list[ExistingLink] = Field(default_factory=list)
    relations: list[ProposedRelation] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """What the model said about the extraction, refinement or feedback (each once; a note
    that says nothing, `1` or `nada`, is left out)."""

    @field_validator("notes")
    @classmethod
    def _notes_worth_reading(cls, notes: list[str]) -> list[str]:
        return list(dict.fromkeys(n.strip() for n in notes if says_something(n)))

    def new_ids(self) -> set[str]:
        return {c.id for c in self.concepts}

    def attributed(self) -> set[str]:
        """Quote ids that support at least one concept."""
        found = {q for c in self.concepts for q in c.quote_ids}
        return found | {q for e in self.existing for q in e.quote_ids}

    def unattributed(self, quote_ids: Iterable[str]) -> list[str]:
        attributed = self.attributed()
        return [q for q in quote_ids if q not in attributed]

    def disconnected(self) -> list[NewConcept]:
        """New concepts without any relation."""
        linked = {r.source_id for r in self.relations} | {r.target_id for r in self.relations}
        return [c for c in self.concepts if c.id not in linked]

    def concept(self, concept_id: str) -> NewConcept | None:
        return next((c for c in self.concepts if c.id == concept_id), None)


def dedupe_relations(
    relations: Iterable[ProposedRelation], new_ids: set[str], known_ids: set[str]
) -> list[ProposedRelation]:
    """Valid relations once each: one end new (B3: never two existing concepts), the other
    new or known, no self-relations, one edge per pair (its inverse is implied), and no
    contradiction (A PART_OF B and B PART_OF A: the first one stays)."""
    seen: set[tuple[str, str, str]] = set()
    families: dict[tuple[frozenset[str], frozenset[str]], tuple[str, str, str]] = {}
    kept = []
    for relation in relations:
        ends = (relation.source_id, relation.target_id)
        if relation.source_id == relation.target_id or not any(e in new_ids for e in ends):
            continue
        if not all(e in new_ids or e in known_ids for e in ends):
            continue
        family = (frozenset(ends), frozenset({relation.type, RELATION_MAP[relation.type]}))
        if (
            relation.pair_key in seen
            or families.get(family, relation.pair_key) != relation.pair_key
        ):
            continue
        seen.add(relation.pair_key)
        families[family] = relation.pair_key
        kept.append(relation)
    return kept


def merge_links(links: Iterable[ExistingLink]) -> list[ExistingLink]:
    """One link per existing concept, quote ids united, first reasoning kept."""
    merged: dict[str, ExistingLink] = {}
    for link in links:
        if link.concept_id in merged:
            current = merged[link.concept_id]
            quotes = list(dict.fromkeys([*current.quote_ids, *link.quote_ids]))
            merged[link.concept_id] = current.model_copy(update={"quote_ids": quotes})
        else:
            merged[link.concept_id] = link
    return [link for link in merged.values() if link.quote_ids]


def drop_items(proposal: Proposal, drops: Iterable[DropData]) -> tuple[Proposal, list[str]]:
    """The proposal without the dropped concepts, relations and attributions.

    A drop is `{"kind": "concept", "id": uuid}`, `{"kind": "relation", "id": "r-..."}` or
    `{"kind": "attribution", "concept_id": uuid, "quote_id": id}`. Dropping a concept drops
    its relations. Returns the new proposal and what was dropped, in words.
    """
    concepts, relations = list(proposal.concepts), list(proposal.relations)
    existing = list(proposal.existing)
    done: list[str] = []
    for drop in drops:
        kind = drop.get("kind")
        if kind == "concept":
            gone = [c for c in concepts if c.id == drop.get("id")]
            concepts = [c for c in concepts if c.id != drop.get("id")]
            relations = [r for r in relations if drop.get("id") not in (r.source_id, r.target_id)]
            done += [f"concept {c.title!r}" for c in gone]
        elif kind == "relation":
            before = len(relations)
            relations = [r for r in relations if r.id != drop.get("id")]
            done += [f"relation {drop.get('id')}"] if len(relations) < before else []
        elif kind == "attribution":
            cid, qid = drop.get("concept_id"), drop.get("quote_id")
            concepts = [_without_quote(c, cid, qid) for c in concepts]
            existing = [_without_quote(e, cid, qid, "concept_id") for e in existing]
            done.append(f"quote {qid} of {cid}")
    update = {"concepts": concepts, "relations": relations, "existing": merge_links(existing)}
    return proposal.model_copy(update=update), done


L = TypeVar("L", NewConcept, ExistingLink)


def _without_quote(item: L, concept_id: object, quote_id: object, field: str = "id") -> L:
    if getattr(item, field) != concept_id or quote_id not in item.quote_ids:
        return item
    return item.model_copy(update={"quote_ids": [q for q in item.quote_ids if q != quote_id]})
