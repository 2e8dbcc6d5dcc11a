"""The concept graph around a note: relations by type in both directions, read from the notes'
frontmatter through the index; missing targets, proposed edges, finding concepts by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.concept_graph import ProposedRelation, find_concepts, neighbourhood
from core.ingest import index_vault
from core.settings import Settings
from core.store import Store

IDS = {
    "memoria": "11111111-0000-0000-0000-000000000001",
    "espaciado": "11111111-0000-0000-0000-000000000002",
    "recuperacion": "11111111-0000-0000-0000-000000000003",
    "kanji": "11111111-0000-0000-0000-000000000004",
    "gone": "11111111-0000-0000-0000-0000000000ff",
}


def concept_note(entity_id: str, title: str, relations: dict[str, list[str]], aliases=()) -> str:
    lines = [
        "---",
        f"entity_id: {entity_id}",
        "entity_type: Concept",
        f"short_summary: {title} en una línea",
        "aliases:",
    ]
    lines += [f"- {a}" for a in aliases] or ["  []"]
    if relations:
        lines.append("concept_relations:")
        for rel_type, targets in relations.items():
            lines.append(f"  {rel_type}:")
            lines += [f"  - {t}" for t in targets]
    return "\n".join([*lines, "---", f"# {title}", "", "## Concepto", "Texto.", ""])


@pytest.fixture
def store(tmp_path: Path):
    vault = tmp_path / "vault"
    ideas = vault / "08 - Ideas"
    ideas.mkdir(parents=True)
    notes = {
        "Memoria a largo plazo": concept_note(IDS["memoria"], "Memoria a largo plazo", {}),
        "Repetición espaciada": concept_note(
            IDS["espaciado"],
            "Repetición espaciada",
            {
                "SUPPORTS": [IDS["memoria"]],
                "SUPPORTED_BY": [IDS["recuperacion"]],
                "RELATES_TO": [IDS["gone"]],
            },
            aliases=["Spaced repetition"],
        ),
        "Práctica de recuperación": concept_note(
            IDS["recuperacion"],
            "Práctica de recuperación",
            {"SUPPORTS": [IDS["espaciado"], IDS["memoria"]], "PART_OF": [IDS["memoria"]]},
            aliases=["Retrieval practice", "Efecto del test"],
        ),
        "漢字の記憶 🈶": concept_note(
            IDS["kanji"], "漢字の記憶 🈶", {"SIMILAR_TO": [IDS["espaciado"]]}
        ),
    }
    for name, text in notes.items():
        (ideas / f"{name}.md").write_text(text, encoding="utf-8")
    settings = Settings(vault={"path": vault}, data={"directory": tmp_path / "data"})
    opened = Store(settings.store_path)
    index_vault(settings, opened)
    yield opened
    opened.close()


def titles(edges) -> list[str]:
    return [e.other.title for e in edges]


def test_relations_in_both_directions_by_type(store) -> None:
    around = neighbourhood(store, IDS["espaciado"])
    assert around.concept.title == "Repetición espaciada" and around.concept.in_vault
    # what its own note says, in the spec's type order
    assert list(around.outgoing) == ["SUPPORTS", "SUPPORTED_BY", "RELATES_TO"]
    assert titles(around.outgoing["SUPPORTS"]) == ["Memoria a largo plazo"]
    assert titles(around.outgoing["SUPPORTED_BY"]) == ["Práctica de recuperación"]
    # what other notes say about it
    assert list(around.incoming) == ["SUPPORTS", "SIMILAR_TO"]
    assert titles(around.incoming["SUPPORTS"]) == ["Práctica de recuperación"]
    assert titles(around.incoming["SIMILAR_TO"]) == ["漢字の記憶 🈶"]


def test_a_concept_only_others_point_at_has_incoming_edges_only(store) -> None:
    around = neighbourhood(store, IDS["memoria"])
    assert around.outgoing == {}
    assert list(around.incoming) == ["PART_OF", "SUPPORTS"]
    assert titles(around.incoming["SUPPORTS"]) == [
        "Práctica de recuperación",
        "Repetición espaciada",
    ]


def test_a_target_without_a_note_is_shown_missing(store) -> None:
    [edge] = neighbourhood(store, IDS["espaciado"]).outgoing["RELATES_TO"]
    assert edge.other.id == IDS["gone"] and not edge.other.in_vault
    assert edge.other.title == "(no note: 11111111)"


def test_proposed_edges_are_laid_over_marked_and_titled(store) -> None:
    new = "22222222-0000-0000-0000-000000000001"
    proposed = [
        ProposedRelation(new, "GENERALIZES", IDS["espaciado"], "la repetición es un caso"),
        ProposedRelation(IDS["espaciado"], "SUPPORTS", IDS["memoria"]),  # already in the vault
        ProposedRelation(IDS["kanji"], "OPPOSES", IDS["memoria"]),  # does not touch it
    ]
    around = neighbourhood(store, IDS["espaciado"], proposed, {new: "Aprendizaje distribuido"})
    [edge] = around.incoming["GENERALIZES"]
    assert edge.proposed and edge.other.title == "Aprendizaje distribuido"
    assert edge.note == "la repetición es un caso" and not edge.other.in_vault
    assert [e.proposed for e in around.outgoing["SUPPORTS"]] == [False]
    assert "OPPOSES" not in around.incoming
    # a new concept at the centre: only its proposed edges, titled
    centre = neighbourhood(store, new, proposed, {new: "Aprendizaje distribuido"})
    assert centre.concept.title == "Aprendizaje distribuido" and not centre.concept.in_vault
    assert titles(centre.outgoing["GENERALIZES"]) == ["Repetición espaciada"]


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("practica", ["Práctica de recuperación"]),  # accents aside
        ("RECUPERACIÓN", ["Práctica de recuperación"]),
        ("  spaced   rep ", ["Repetición espaciada"]),  # an alias, spaces collapsed
        ("記憶", ["漢字の記憶 🈶"]),
        ("re", ["Repetición espaciada", "Práctica de recuperación"]),  # starts with it first
        ("efecto", ["Práctica de recuperación"]),
        ("zzz", []),
        ("", []),
    ],
)
def test_find_concepts_by_title_or_alias(store, typed: str, found: list[str]) -> None:
    assert [n.title for n in find_concepts(store, typed)] == found
