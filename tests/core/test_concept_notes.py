"""Concept notes: template rendering, exact round trip, minimal edits of existing notes."""

from __future__ import annotations

import difflib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from core.concept_notes import (
    QuoteRef,
    add_quotes,
    add_relations,
    parse_concept_note,
    read_concept_note,
    render_concept_note,
)
from core.domain import Concept, Relation, RelationType
from vault.note import parse_note
from vault.titles import note_title

SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "sample_vault"


def make(language="es"):
    concept = Concept(
        title="Hábitos atómicos",
        aliases=["Atomic habits", "Micro-hábitos"],
        short_summary="Cambios diminutos: que se acumulan.",
        summary='Un resumen con "comillas", dos puntos: y #almohadilla.',
        concept="Qué es.\n\nSegundo párrafo con [[Enlace]].",
        analysis="Mi análisis.",
        language=language,
    )
    other, third = Concept(title="Repetición espaciada"), Concept(title="Sistemas")
    relations = [
        Relation(source_id=concept.id, type=RelationType.RELATES_TO, target_id=other.id),
        Relation(source_id=concept.id, type=RelationType.PART_OF, target_id=third.id),
        Relation(source_id=concept.id, type=RelationType.RELATES_TO, target_id=third.id),
    ]
    names = {other.id: other.title, third.id: third.title}
    quotes = [QuoteRef("Atomic Habits", "ah-compound"), QuoteRef("Apréndetelo", "q-12ab")]
    return concept, relations, names, quotes


def reparse(text: str):
    return parse_concept_note(parse_note("08 - Ideas/x.md", text.encode()))


def test_spanish_template_and_round_trip():
    concept, relations, names, quotes = make()
    text = render_concept_note(concept, relations, names, quotes)
    assert text.startswith(f"---\nentity_id: {concept.id}\nentity_type: Concept\n")
    for heading in ("## Concepto", "## Análisis", "## Conexiones", "## Fuente"):
        assert heading in text
    for rel_type in RelationType:
        assert f"\n- {rel_type.value}:" in text  # all nine, even empty
    assert "- RELATES_TO: [[Repetición espaciada]], [[Sistemas]]" in text
    assert "- [[Atomic Habits#^ah-compound]]" in text
    back = reparse(text)
    assert back.concept == concept
    assert back.relations == [relations[1], relations[0], relations[2]]  # grouped by type
    assert {r.key for r in back.relations} == {r.key for r in relations}
    assert back.quotes == quotes


def test_english_headings_round_trip():
    concept, relations, names, quotes = make("en")
    text = render_concept_note(concept, relations, names, quotes)
    assert "## Concept\n" in text and "## Connections\n" in text and "## Source\n" in text
    assert "## Concepto" not in text
    back = reparse(text)
    assert back.concept == concept and back.concept.language == "en"


def test_other_language_kept_in_frontmatter():
    concept, relations, names, quotes = make("fr")
    assert reparse(render_concept_note(concept, relations, names, quotes)).concept.language == "fr"


def changed_lines(a: str, b: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_adding_a_relation_is_a_minimal_edit():
    concept, relations, names, quotes = make()
    text = render_concept_note(concept, relations, names, quotes)
    new = Concept(title="Identidad")
    edited = add_relations(
        text,
        [
            Relation(source_id=concept.id, type=RelationType.SUPPORTS, target_id=new.id),
            relations[0],
        ],  # an existing one is not duplicated
        {new.id: new.title},
    )
    assert changed_lines(text, edited) == [
        "+  SUPPORTS:",
        f"+  - {new.id}",
        "+supports:",
        "+- '[[Identidad]]'",
        "-- SUPPORTS:",
        "+- SUPPORTS: [[Identidad]]",
    ]
    back = reparse(edited)
    assert back.concept == concept
    assert {r.key for r in back.relations} == {r.key for r in relations} | {
        (concept.id, RelationType.SUPPORTS, new.id)
    }
    assert add_relations(edited, relations, names) == edited


def test_adding_a_quote_is_a_minimal_edit_and_keeps_crlf():
    concept, relations, names, quotes = make()
    text = render_concept_note(concept, relations, names, quotes).replace("\n", "\r\n")
    edited = add_quotes(text, [QuoteRef("Deep Work", "dw-1"), quotes[0]])
    assert edited == text + "- [[Deep Work#^dw-1]]\r\n"
    assert reparse(edited).quotes == [*quotes, QuoteRef("Deep Work", "dw-1")]


def test_quote_section_is_created_when_missing():
    text = "---\nentity_id: x\n---\n# T\n\n## Concepto\nc\n"
    edited = add_quotes(text, [QuoteRef("S", "q1")])
    assert edited == text + "\n## Fuente\n- [[S#^q1]]\n"


def test_sample_vault_concepts_parse():
    note = read_concept_note(SAMPLE, "08 - Ideas/Identity-based habits.md")
    assert note.concept.language == "en" and note.concept.title == "Identity-based habits"
    assert [r.type for r in note.relations] == [RelationType.PART_OF]
    assert QuoteRef("Atomic Habits", "ah-identity") in note.quotes


words = st.text(st.characters(whitelist_categories=("L", "N", "Zs", "P")), min_size=1, max_size=40)


@settings(max_examples=100, deadline=None)
@given(
    st.builds(
        Concept,
        title=words.map(str.strip).filter(bool).filter(lambda t: note_title(t) == t),
        aliases=st.lists(words.map(str.strip).filter(bool), max_size=3),
        short_summary=words.map(str.strip),
        summary=words.map(str.strip),
        concept=words.map(str.strip),
        analysis=words.map(str.strip),
        language=st.sampled_from(["es", "en"]),
    ),
    st.lists(st.sampled_from(list(RelationType)), max_size=5),
)
def test_round_trip_property(concept, types):
    targets = [Concept(title=f"T{i}") for i in range(len(types))]
    relations = [
        Relation(source_id=concept.id, type=t, target_id=target.id)
        for t, target in zip(types, targets, strict=True)
    ]
    text = render_concept_note(concept, relations, {t.id: t.title for t in targets})
    back = reparse(text)
    assert back.concept == concept
    assert {r.key for r in back.relations} == {r.key for r in relations}
