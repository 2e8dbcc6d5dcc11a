"""The concepts normalization and merging work on, read from the vault index."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


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

    def definition(self) -> str:
        """What the evaluator compares: the summary, else the short summary."""
        return self.summary or self.short_summary or "(no definition)"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def backlink_counts(store: Any) -> dict[tuple[str, str], int]:
    """(lower-cased target name, linking note path) -> number of links."""
    rows = store.query(
        "SELECT target_name, source_path, COUNT(*) FROM links GROUP BY target_name, source_path"
    )
    return {(r[0], r[1]): int(r[2]) for r in rows}


def load_concepts(store: Any) -> list[ConceptInfo]:
    """Every concept of the index with its backlink count (self-links excluded), by title."""
    counts: dict[str, int] = {}
    own: dict[tuple[str, str], int] = backlink_counts(store)
    for (name, _source), n in own.items():
        counts[name] = counts.get(name, 0) + n
    rows = store.query(
        "SELECT entity_id, title, path, aliases_json, short_summary, summary FROM concepts"
        " ORDER BY title COLLATE NOCASE, entity_id"
    )
    concepts = []
    for r in rows:
        stem = r[2].rsplit("/", 1)[-1][:-3].lower()
        links = counts.get(stem, 0) - own.get((stem, r[2]), 0)
        concepts.append(
            ConceptInfo(
                id=r[0],
                title=r[1],
                path=r[2],
                aliases=[str(a) for a in json.loads(r[3] or "[]")],
                short_summary=r[4] or "",
                summary=r[5] or "",
                links=links,
            )  # fmt: skip
        )
    return concepts
