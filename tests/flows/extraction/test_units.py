"""Deterministic parts: title matching, language guess, relations, revisions, the report."""

from __future__ import annotations

from core.domain import RelationType
from core.flows.extraction.proposal import (
    ExistingLink,
    NewConcept,
    Proposal,
    ProposedRelation,
    dedupe_relations,
)
from core.flows.extraction.report import build_report, report_text
from core.flows.extraction.revision import Labels, Revision, apply_revision, revision_schema
from core.flows.extraction.text import guess_language, is_other_language, normalize_title
from local_llm import validate_bounded


def test_normalize_title() -> None:
    assert normalize_title("La  Práctica de Recuperación!") == normalize_title(
        "practica de recuperacion"
    )
    assert normalize_title("El hábito") == "habito"
    assert normalize_title("Hábito") != normalize_title("Hábitos")


def test_language_guess_only_flags_clear_cases() -> None:
    assert guess_language("El ejercicio mejora la salud de las personas que lo practican") == "es"
    assert guess_language("The practice of spacing is what makes it last in the memory") == "en"
    assert guess_language("Deep Work") is None
    assert (
        is_other_language("The practice of spacing is what makes it last in the memory", "es")
        == "en"
    )
    assert is_other_language("Deep Work", "es") is None


def test_relations_are_deduplicated_with_their_inverse_and_never_between_existing() -> None:
    a, b, x, y = "new-a", "new-b", "old-x", "old-y"
    relations = [
        ProposedRelation(source_id=a, type=RelationType.PART_OF, target_id=b),
        ProposedRelation(source_id=b, type=RelationType.HAS_PART, target_id=a),  # same edge
        ProposedRelation(
            source_id=x, type=RelationType.RELATES_TO, target_id=y
        ),  # existing-existing
        ProposedRelation(source_id=a, type=RelationType.OPPOSES, target_id="ghost"),  # unknown
        ProposedRelation(source_id=a, type=RelationType.SIMILAR_TO, target_id=a),  # self
        ProposedRelation(source_id=a, type=RelationType.GENERALIZES, target_id=x),
        ProposedRelation(source_id=b, type=RelationType.PART_OF, target_id=a),  # contradicts
        ProposedRelation(source_id=b, type=RelationType.SIMILAR_TO, target_id=a),  # another kind
    ]
    kept = dedupe_relations(relations, {a, b}, {x, y})
    assert [(r.source_id, r.type.value, r.target_id) for r in kept] == [
        (a, "PART_OF", b),
        (a, "GENERALIZES", x),
        (b, "SIMILAR_TO", a),
    ]


def proposal() -> Proposal:
    return Proposal(
        concepts=[
            NewConcept(id="A", title="Uno", quote_ids=["q1"]),
            NewConcept(id="B", title="Dos", quote_ids=["q2"]),
        ],
        existing=[ExistingLink(concept_id="X", title="Viejo", quote_ids=["q3"], candidate="Old")],
        relations=[ProposedRelation(source_id="A", type=RelationType.PART_OF, target_id="X")],
    )


def test_revision_schema_admits_only_shown_labels_and_ids() -> None:
    p = proposal()
    labels = Labels.build(p, ["X"])
    schema = revision_schema(Revision, labels, ["q1", "q2", "q3"], [p.relations[0].id])
    good = Revision(drop_concepts=["n2"], drop_relations=[p.relations[0].id]).model_dump()
    assert validate_bounded(good, schema) == []
    bad = Revision(
        drop_concepts=["n9"], link_quotes=[{"quote_id": "q7", "concept": "e1"}]
    ).model_dump()
    assert len(validate_bounded(bad, schema)) == 2


def test_apply_revision() -> None:
    p = proposal()
    labels = Labels.build(p, ["X"])
    revision = Revision(
        changes="ajustes de títulos",
        drop_concepts=["n2"],
        add_concepts=[
            {
                "title": "Tres",
                "short_summary": "s",
                "concept": "c",
                "analysis": "a",
                "quote_ids": ["q2"],
            }
        ],
        link_quotes=[{"quote_id": "q2", "concept": "e1"}],
        unlink_quotes=[{"quote_id": "q3", "concept": "e1"}],
        drop_relations=[p.relations[0].id],
    )
    out = apply_revision(p, revision, labels, {"X": {"title": "Viejo"}}, ["q1", "q2", "q3"])
    assert [c.title for c in out.concepts] == ["Uno", "Tres"]
    assert out.existing[0].quote_ids == ["q2"]
    assert out.relations == [] and out.notes == ["ajustes de títulos"]


def test_a_revision_that_gives_two_concepts_one_title_leaves_one_concept() -> None:
    """Gemma 3 270M's refinements renamed a concept and added two more under the one title
    'Cómo aprendemos': the review then offered three notes of one name."""
    p = proposal()
    labels = Labels.build(p, ["X"])
    revision = Revision(
        edit_concepts=[
            {
                "concept": "n2",
                "title": "uno",
                "short_summary": "",
                "concept_text": "",
                "analysis": "",
            }
        ],
        add_concepts=[
            {
                "title": "¡Uno!",
                "short_summary": "s",
                "concept": "c",
                "analysis": "a",
                "quote_ids": ["q3"],
            },
            {
                "title": "Cuatro",
                "short_summary": "s",
                "concept": "c",
                "analysis": "a",
                "quote_ids": ["q3"],
            },
        ],
    )
    out = apply_revision(p, revision, labels, {"X": {"title": "Viejo"}}, ["q1", "q2", "q3"])
    assert [c.title for c in out.concepts] == ["Uno", "Cuatro"]
    assert out.concepts[0].id == "A"
    assert out.concepts[0].quote_ids == ["q1", "q2", "q3"]


def test_report_marks_multi_concept_quotes_and_prints() -> None:
    p = proposal()
    p.concepts[1].quote_ids.append("q1")
    state = {
        "source": "s.md",
        "source_title": "S",
        "proposal": p.model_dump(mode="json"),
        "quotes": [{"id": f"q{i}", "text": f"quote {i}"} for i in range(1, 5)],
        "critique_log": [
            {"round": 1, "passed": False, "summary": "did not pass", "code_issues": []}
        ],
    }
    review = build_report(state, 8)
    assert [a.multi for a in review.attributions] == [True, False, False]
    assert [q.id for q in review.unattributed] == ["q4"]
    assert review.disconnected == ["Dos"]
    assert review.relations[0].inverse_type == "HAS_PART"
    text = report_text(review)
    assert "[several concepts]" in text and "Old -> Viejo" in text and "round 1: failed" in text


def test_a_title_cut_by_the_schema_length_ends_on_a_whole_word() -> None:
    from core.flows.extraction.prompts import MAX_TITLE
    from core.flows.extraction.proposal import NewConcept

    cut = "El ejercicio aeróbico regular mejora la salud cardiovascular al fortalecer el mú"
    assert len(cut) == MAX_TITLE
    assert (
        NewConcept(title=cut).title
        == "El ejercicio aeróbico regular mejora la salud cardiovascular al fortalecer el"
    )
    assert NewConcept(title="  Hábitos   atómicos ").title == "Hábitos atómicos"


def test_the_refinement_schema_bounds_every_list() -> None:
    """Every list of a refinement is bounded (drops, an added concept's quotes...), so its
    longest valid answer is known and `max_tokens` is derived from it (the bench counted
    its refinements as unbounded schemas)."""
    from core.flows.extraction.revision import FeedbackRevision
    from local_llm.grammar import grammar_schema, limit_tokens

    concepts = [NewConcept(title=f"Idea {i} 🧠", quote_ids=["q1"]) for i in range(3)]
    labels = Labels.build(Proposal(concepts=concepts), ["e-1", "e-2"])
    quotes = ["q1", "q2", "ca-olvido", "q-ü"]
    for model in (Revision, FeedbackRevision):
        schema = revision_schema(model, labels, quotes, ["r1", "r2"])
        assert limit_tokens(grammar_schema(schema)) is not None
        props = schema["properties"]
        assert props["drop_concepts"]["maxItems"] == 3
        assert props["drop_relations"]["maxItems"] == 2
        added = props["add_concepts"]["items"]["properties"]["quote_ids"]
        assert added["maxItems"] == len(quotes)
