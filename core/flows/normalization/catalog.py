"""The names the generator sees: every concept's title and aliases (from the index)."""

from __future__ import annotations

from collections.abc import Iterable

from core.flows.normalization.variants import NamedConcept
from core.merges.catalog import ConceptInfo, load_concepts

__all__ = ["ConceptInfo", "concept_names", "load_concepts"]


def concept_names(concepts: Iterable[ConceptInfo]) -> list[NamedConcept]:
    """Every distinct name (title, then aliases) with the concept it names."""
    seen: set[str] = set()
    names: list[NamedConcept] = []
    for concept in concepts:
        for name in (concept.title, *concept.aliases):
            name = name.strip()
            if name and name not in seen:
                seen.add(name)
                names.append(NamedConcept(name, concept.id, concept.language or None))
    return names
