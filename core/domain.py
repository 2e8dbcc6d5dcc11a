"""Domain types shared by every workflow: sources, quotes, concepts and typed relations."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class RelationType(StrEnum):
    """The nine relation types between concepts (spec 002, section 6)."""

    GENERALIZES = "GENERALIZES"
    SPECIFIC_OF = "SPECIFIC_OF"
    PART_OF = "PART_OF"
    HAS_PART = "HAS_PART"
    SUPPORTS = "SUPPORTS"
    SUPPORTED_BY = "SUPPORTED_BY"
    OPPOSES = "OPPOSES"
    SIMILAR_TO = "SIMILAR_TO"
    RELATES_TO = "RELATES_TO"


RELATION_MAP: dict[RelationType, RelationType] = {
    RelationType.GENERALIZES: RelationType.SPECIFIC_OF,
    RelationType.SPECIFIC_OF: RelationType.GENERALIZES,
    RelationType.PART_OF: RelationType.HAS_PART,
    RelationType.HAS_PART: RelationType.PART_OF,
    RelationType.SUPPORTS: RelationType.SUPPORTED_BY,
    RelationType.SUPPORTED_BY: RelationType.SUPPORTS,
    RelationType.OPPOSES: RelationType.OPPOSES,
    RelationType.SIMILAR_TO: RelationType.SIMILAR_TO,
    RelationType.RELATES_TO: RelationType.RELATES_TO,
}
"""Each relation type and the type its reverse edge carries (symmetric types map to themselves)."""

RELATION_DESCRIPTIONS: dict[RelationType, str] = {
    RelationType.GENERALIZES: "the source is a general idea that encompasses the target",
    RelationType.SPECIFIC_OF: "the source is a specific instance of the target",
    RelationType.PART_OF: "the source is a component of the target",
    RelationType.HAS_PART: "the target is a component of the source",
    RelationType.SUPPORTS: "the source provides evidence for the target",
    RelationType.SUPPORTED_BY: "the target provides evidence for the source",
    RelationType.OPPOSES: "the two ideas are in direct opposition",
    RelationType.SIMILAR_TO: "the ideas are related but distinct",
    RelationType.RELATES_TO: "a general relationship (catch-all)",
}


class Source(BaseModel):
    """A content node: a source note (book, article) whose quotes feed concepts."""

    model_config = ConfigDict(frozen=True)

    path: Path
    """Path of the note relative to the vault root."""
    title: str
    """Title from frontmatter, else the file name."""
    author: str | None = None
    """Author from frontmatter."""
    category: str | None = None
    """Category from frontmatter (book, article, ...)."""
    processed_date: datetime | None = None
    """Set once the source was extracted; a processed source is never extracted again."""


class Quote(BaseModel):
    """A quote (highlight) of a source note."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The quote's block id when it has one, else a stable id derived from its text."""
    text: str
    """The quote text, without blockquote or list markers."""
    source: Path
    """Path of the source note that holds it, relative to the vault root."""


def new_concept_id() -> str:
    """A fresh concept UUID."""
    return str(uuid.uuid4())


class Concept(BaseModel):
    """An atomic idea: one concept note in the concepts folder and its row in the store."""

    id: str = Field(default_factory=new_concept_id)
    """The concept's UUID (frontmatter `entity_id`)."""
    title: str
    """Title; also the note's file name."""
    aliases: list[str] = Field(default_factory=list)
    """Other names of the concept (frontmatter `aliases`)."""
    short_summary: str = ""
    """At most 30 words."""
    summary: str = ""
    """At most 100 words."""
    concept: str = ""
    """What the concept is (section Concepto / Concept)."""
    analysis: str = ""
    """Personal analysis and insights (section Análisis / Analysis)."""
    language: str = "es"
    """ISO 639-1 language of the concept's text."""


class Relation(BaseModel):
    """A typed, directed edge between two concepts."""

    model_config = ConfigDict(frozen=True)

    source_id: str
    """UUID of the concept the edge starts from."""
    type: RelationType
    """Relation type."""
    target_id: str
    """UUID of the concept the edge points to."""
    explanation: str = ""
    """Why the relation holds."""

    def inverse(self) -> Relation:
        """The reverse edge with the inverse type (RELATION_MAP)."""
        return Relation(
            source_id=self.target_id,
            type=RELATION_MAP[self.type],
            target_id=self.source_id,
            explanation=self.explanation,
        )

    @property
    def key(self) -> tuple[str, RelationType, str]:
        """Identity of the edge, ignoring its explanation."""
        return (self.source_id, self.type, self.target_id)


def with_inverses(relations: list[Relation]) -> list[Relation]:
    """Every relation plus its inverse, without duplicates or self-relations, order kept."""
    seen: set[tuple[str, RelationType, str]] = set()
    result: list[Relation] = []
    for relation in relations:
        if relation.source_id == relation.target_id:
            continue
        for edge in (relation, relation.inverse()):
            if edge.key not in seen:
                seen.add(edge.key)
                result.append(edge)
    return result
