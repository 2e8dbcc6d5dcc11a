"""The lesson's source material: the topic's concept note, its related concepts and the quotes
that support it, read from the vault and the index tables."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.concept_notes import parse_concept_note
from core.store import Store
from core.vault_handle import VaultHandle


@dataclass
class SourceMaterial:
    """What the planner, the expanders, the self-reviewer and the judges see as sources."""

    topic: str
    concept_path: str
    language: str
    summary: str = ""
    related: list[tuple[str, str, str]] = field(default_factory=list)
    """(relation type, title, short summary) of related concepts."""
    quotes: list[tuple[str, str]] = field(default_factory=list)
    """(source note name, quote text)."""
    body: str = ""
    """The concept note's own concept and analysis text."""

    def text(self) -> str:
        """The material as one plain block for prompts."""
        lines = [f"Concept: {self.topic}"]
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.body:
            lines.append(self.body)
        if self.related:
            lines.append("Related concepts:")
            lines += [f"- {t} ({rel}): {s}" for rel, t, s in self.related]
        if self.quotes:
            lines.append("Supporting quotes:")
            lines += [f'- "{q}" ({src})' for src, q in self.quotes]
        return "\n".join(lines)


def resolve_concept(store: Store, concept: str) -> str | None:
    """A concept note path from a path or a title / alias (case-insensitive) in the index."""
    value = concept.strip()
    row = store.query_one(
        "SELECT path FROM concepts WHERE path = ? OR path = ? OR lower(title) = lower(?)",
        (value, f"{value}.md", value),
    )
    if row:
        return str(row[0])
    for path, aliases in store.query("SELECT path, aliases_json FROM concepts"):
        if value.lower() in (a.lower() for a in _json_list(aliases)):
            return str(path)
    return value if value.endswith(".md") else None


def _json_list(text: str) -> list[str]:
    import json

    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def related_concepts(store: Store, entity_id: str, limit: int) -> list[tuple[str, str, str]]:
    rows = store.query(
        "SELECT r.type, c.title, c.short_summary FROM concept_relations r"
        " JOIN concepts c ON c.entity_id = r.target_id WHERE r.source_id = ?"
        " UNION SELECT r.type, c.title, c.short_summary FROM concept_relations r"
        " JOIN concepts c ON c.entity_id = r.source_id WHERE r.target_id = ? LIMIT ?",
        (entity_id, entity_id, limit),
    )
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def supporting_quotes(store: Store, entity_id: str, limit: int) -> list[tuple[str, str]]:
    rows = store.query(
        "SELECT qc.source_name, q.text FROM quote_concepts qc JOIN quotes q"
        " ON (q.id = qc.quote_id OR q.block_id = qc.quote_id)"
        " AND (q.source_path = qc.source_name || '.md' OR q.source_path LIKE '%/' || qc.source_name || '.md')"
        " WHERE qc.concept_id = ? LIMIT ?",
        (entity_id, limit),
    )
    return [(str(a), str(b)) for a, b in rows]


def load_sources(
    vault: VaultHandle,
    store: Store,
    concept: str,
    *,
    language: str,
    related_limit: int,
    quote_limit: int,
) -> SourceMaterial:
    """Read the concept note and gather its related concepts and quotes from the index."""
    path = resolve_concept(store, concept)
    if path is None:
        raise FileNotFoundError(f"no concept note named {concept!r}")
    note = vault.writer.read(path)
    parsed = parse_concept_note(note)
    c = parsed.concept
    lang = language or str(note.frontmatter.get("language") or c.language or "")
    body = "\n".join(t for t in (c.concept, c.analysis) if t)
    return SourceMaterial(
        topic=c.title or note.title,
        concept_path=path,
        language=lang,
        summary=c.summary or c.short_summary,
        related=related_concepts(store, c.id, related_limit) if c.id else [],
        quotes=supporting_quotes(store, c.id, quote_limit) if c.id else [],
        body=body,
    )
