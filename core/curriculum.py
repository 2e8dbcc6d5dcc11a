"""What the tutor can teach: the vault's curriculum folder and any concept note.

Curriculum notes live at `<curriculum folder>/<Subject>/<Topic>/<Subtopic>.md`: the body is the
teaching guideline; frontmatter may give `grade` (or `level`) and `learning_objectives`
(otherwise the bullets of an `Objetivos` / `Objectives` section are used); the wiki links of a
`Conceptos` / `Concepts` section name the concept notes the subtopic teaches.

A concept note can be tutored too: its guideline is built from the concept (summary, concept,
analysis), its related concepts (from the index's typed relations) and the quotes it cites.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from core.concept_notes import parse_concept_note
from vault.note import NoteUnreadable, read_note

if TYPE_CHECKING:
    from core.store import Store

OBJECTIVE_HEADINGS = ("Objetivos", "Objectives", "Learning objectives")
CONCEPT_HEADINGS = ("Conceptos", "Concepts")
MAX_RELATED = 8
MAX_QUOTES = 6


@dataclass(frozen=True)
class ConceptRef:
    """A concept note by its entity id and title."""

    id: str
    title: str


@dataclass
class Lesson:
    """Something to tutor: a guideline and what it is about."""

    title: str
    guideline: str
    source: str
    """`curriculum` or `concept`."""
    path: str
    """Vault-relative path of the note it came from."""
    subject: str = ""
    topic: str = ""
    subtopic: str = ""
    grade: str = ""
    objectives: list[str] = field(default_factory=list)
    concepts: list[ConceptRef] = field(default_factory=list)
    concept_titles: list[str] = field(default_factory=list)
    """Titles linked from the note (resolved to `concepts` against the index)."""

    def topic_info(self) -> dict[str, object]:
        """The tutor's `topic_info` for this lesson."""
        return {
            "title": self.title,
            "source": self.source,
            "subject": self.subject,
            "topic": self.topic,
            "subtopic": self.subtopic,
            "grade": self.grade,
            "objectives": list(self.objectives),
            "concepts": [{"id": c.id, "title": c.title} for c in self.concepts],
            "path": self.path,
        }


def _bullets(text: str) -> list[str]:
    items = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:2] in ("- ", "* "):
            items.append(stripped[2:].strip())
    return [item for item in items if item]


def read_subtopic(root: Path, rel: str) -> Lesson:
    """One curriculum note as a Lesson (subject and topic from its folders)."""
    note = read_note(Path(root), rel)
    parts = PurePosixPath(rel).parts
    subject, topic = (parts[-3], parts[-2]) if len(parts) >= 3 else ("", "")
    fm = note.frontmatter
    objectives = fm.get("learning_objectives")
    if not isinstance(objectives, list):
        objectives = _bullets(note.section_text(*OBJECTIVE_HEADINGS))
    section = note.section(*CONCEPT_HEADINGS)
    titles = []
    if section is not None:
        titles = [link.name for link in note.links if section.start <= link.start < section.end]
    return Lesson(
        title=note.title,
        guideline=note.body.strip(),
        source="curriculum",
        path=rel,
        subject=str(fm.get("subject") or subject),
        topic=str(fm.get("topic") or topic),
        subtopic=note.title,
        grade=str(fm.get("grade") or fm.get("level") or ""),
        objectives=[str(o) for o in objectives],
        concept_titles=list(dict.fromkeys(titles)),
    )


def load_curriculum(root: Path, folder: str) -> list[Lesson]:
    """Every readable subtopic under the curriculum folder, sorted by subject, topic, name."""
    base = Path(root) / folder
    found = []
    for path in sorted(base.glob("*/*/*.md")):
        if any(part.startswith(".") for part in path.relative_to(base).parts):
            continue
        try:
            found.append(read_subtopic(root, path.relative_to(root).as_posix()))
        except NoteUnreadable:
            continue
    return sorted(found, key=lambda x: (x.subject.lower(), x.topic.lower(), x.title.lower()))


def subjects(lessons: list[Lesson]) -> list[str]:
    return list(dict.fromkeys(lesson.subject for lesson in lessons))


def topics(lessons: list[Lesson], subject: str) -> list[str]:
    return list(dict.fromkeys(x.topic for x in lessons if x.subject == subject))


def subtopics(lessons: list[Lesson], subject: str, topic: str) -> list[Lesson]:
    return [x for x in lessons if x.subject == subject and x.topic == topic]


# -- the index ----------------------------------------------------------------------------


def resolve_concepts(store: Store, titles: list[str]) -> list[ConceptRef]:
    """Concept notes named by title or alias (case-insensitive), in the order given."""
    rows = store.query("SELECT entity_id, title, aliases_json FROM concepts")
    by_name: dict[str, ConceptRef] = {}
    for row in rows:
        ref = ConceptRef(row[0], row[1])
        for name in [row[1], *json.loads(row[2] or "[]")]:
            by_name.setdefault(str(name).lower(), ref)
    found = [by_name[t.lower()] for t in titles if t.lower() in by_name]
    return list(dict.fromkeys(found))


def list_concepts(store: Store) -> list[ConceptRef]:
    """Every indexed concept note, by title."""
    rows = store.query("SELECT entity_id, title FROM concepts ORDER BY title COLLATE NOCASE")
    return [ConceptRef(row[0], row[1]) for row in rows]


def related_concepts(store: Store, concept_id: str) -> list[tuple[str, str, str]]:
    """(relation type, title, short summary) of the concepts linked to one, both directions."""
    rows = store.query(
        "SELECT r.type, c.title, c.short_summary FROM concept_relations r"
        " JOIN concepts c ON c.entity_id = r.target_id WHERE r.source_id = ?"
        " UNION SELECT r.type || ' (inverse)', c.title, c.short_summary FROM concept_relations r"
        " JOIN concepts c ON c.entity_id = r.source_id WHERE r.target_id = ?",
        (concept_id, concept_id),
    )
    return [(row[0], row[1], row[2]) for row in rows][:MAX_RELATED]


def concept_quotes(store: Store, concept_id: str) -> list[tuple[str, str]]:
    """(source title, quote text) of the quotes a concept note cites."""
    rows = store.query(
        "SELECT n.title, q.text FROM quote_concepts qc"
        " JOIN notes n ON lower(n.title) = qc.source_name"
        " JOIN quotes q ON q.source_path = n.path AND (q.block_id = qc.quote_id OR q.id = qc.quote_id)"
        " WHERE qc.concept_id = ? ORDER BY n.title, q.position",
        (concept_id,),
    )
    return [(row[0], row[1]) for row in rows][:MAX_QUOTES]


def concept_lesson(store: Store, root: Path, concept_id: str) -> Lesson:
    """A Lesson built from a concept note, its related concepts and its quotes."""
    row = store.query_one("SELECT path FROM concepts WHERE entity_id = ?", (concept_id,))
    if row is None:
        raise KeyError(f"no concept note with id {concept_id} in the index")
    parsed = parse_concept_note(read_note(Path(root), row[0]))
    concept = parsed.concept
    lines = [f"# {concept.title}", ""]
    for label, text in (
        ("Summary", concept.summary or concept.short_summary),
        ("Concept", concept.concept),
        ("Analysis", concept.analysis),
    ):
        if text.strip():
            lines += [f"## {label}", text.strip(), ""]
    related = related_concepts(store, concept_id)
    if related:
        lines.append("## Related concepts")
        lines += [f"- {kind}: {title} — {summary}".rstrip(" —") for kind, title, summary in related]
        lines.append("")
    quotes = concept_quotes(store, concept_id)
    if quotes:
        lines.append("## Quotes")
        lines += [f"- {text.strip()} ({source})" for source, text in quotes]
    return Lesson(
        title=concept.title,
        guideline="\n".join(lines).strip(),
        source="concept",
        path=row[0],
        objectives=[f"Understand and apply: {concept.title}"],
        concepts=[ConceptRef(concept_id, concept.title)],
    )


def with_concepts(store: Store, lesson: Lesson) -> Lesson:
    """The lesson with its linked concept titles resolved against the index."""
    if lesson.concept_titles and not lesson.concepts:
        lesson.concepts = resolve_concepts(store, lesson.concept_titles)
    return lesson
