"""Deterministic name matching for duplicate detection (1.1b), before and beside search.

Without an embedding model, search is full-text: a candidate whose name is a variant of an
existing concept's name (case, accents, plural, an acronym, a typo) may share no indexed word
with it and never reach the duplicate judge. Code finds those by name, reusing the variant
rules of normalization:

- same variant key (case, accents, punctuation, singular/plural) -> the same concept, decided
  without the model (`decided_by="match"`);
- an acronym of the other's name (`ZDP` / `Zona de desarrollo próximo`), or a fuzzy ratio of
  the folded names at or above `flows.extraction.name_similarity` -> a candidate the model
  judges, put before the search hits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from core.flows.extraction.records import ConceptRow
from core.flows.normalization.variants import fold, initials, looks_like_acronym, variant_key


@dataclass(frozen=True)
class KnownName:
    """One name (title or alias) of an existing concept."""

    name: str
    row: ConceptRow
    """The concept's row: entity_id, title, path, short_summary."""


def known_names(rows: Iterable[ConceptRow]) -> list[KnownName]:
    """Every title and alias of the concept rows (`aliases_json` as the index stores it)."""
    names = []
    for row in rows:
        aliases = json.loads(row.get("aliases_json") or "[]")
        for name in dict.fromkeys([str(row["title"]), *map(str, aliases)]):
            if name.strip():
                names.append(KnownName(name, row))
    return names


def same_name(title: str, names: Iterable[KnownName]) -> KnownName | None:
    """The first known name that is `title` up to case, accents, punctuation or plural."""
    wanted = variant_key(title)
    if not wanted:
        return None
    return next((n for n in names if variant_key(n.name) == wanted), None)


def _acronym_of(short: str, long: str) -> bool:
    return looks_like_acronym(short) and fold(short).replace(" ", "") == initials(long)


def similar_names(
    title: str, names: list[KnownName], threshold: float, limit: int
) -> list[ConceptRow]:
    """Rows of concepts whose name is an acronym of `title` (or the reverse) or close to it
    by fuzzy ratio (0-100 scale, `threshold` in 0..1); best first, one row per concept."""
    found: dict[str, ConceptRow] = {}
    for n in names:
        if _acronym_of(title, n.name) or _acronym_of(n.name, title):
            found.setdefault(n.row["entity_id"], n.row)
    folded = [fold(n.name) for n in names]
    matches = process.extract(
        fold(title),
        folded,
        scorer=fuzz.token_sort_ratio,
        score_cutoff=threshold * 100,
        limit=limit * 4,
    )
    for _text, _score, index in matches:
        found.setdefault(names[index].row["entity_id"], names[index].row)
    return list(found.values())[:limit]
