"""The concepts normalization and merging work on, read from the vault index."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store import Store


@dataclass
class ConceptInfo:
    """One concept as normalization sees it."""

    id: str
    title: str
    path: str = ""
    aliases: list[str] = field(default_factory=list)
    short_summary: str = ""
    summary: str = ""
    links: int = 0
    """How many links in the vault point at it (the default canonical has the most)."""
    language: str = ""
    """The concept's language ("" when its note does not say)."""

    def definition(self) -> str:
        """What the evaluator compares: the summary, else the short summary."""
        return self.summary or self.short_summary or "(no definition)"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def backlink_counts(store: Store) -> dict[str, int]:
    """Note path -> how many links of other notes resolve to it (as Obsidian resolves them:
    two notes whose names differ only in case have their own backlinks)."""
    rows = store.query(
        "SELECT resolved_path, COUNT(*) FROM links WHERE resolved_path IS NOT NULL"
        " AND resolved_path != source_path GROUP BY resolved_path"
    )
    return {r[0]: int(r[1]) for r in rows}


def load_concepts(store: Store) -> list[ConceptInfo]:
    """Every concept of the index with its backlink count (self-links excluded), by title."""
    counts = backlink_counts(store)
    rows = store.query(
        "SELECT entity_id, title, path, aliases_json, short_summary, summary, language"
        " FROM concepts"
        " ORDER BY title COLLATE NOCASE, entity_id"
    )
    concepts = []
    for r in rows:
        links = counts.get(r[2], 0)
        concepts.append(
            ConceptInfo(
                id=r[0],
                title=r[1],
                path=r[2],
                aliases=[str(a) for a in json.loads(r[3] or "[]")],
                short_summary=r[4] or "",
                summary=r[5] or "",
                links=links,
                language=r[6] or "",
            )
        )
    return concepts
