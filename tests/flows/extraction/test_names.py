"""Duplicate candidates by name (issue 16): without embeddings, full-text search misses an
existing concept whose name is an acronym, a plural or an accent away from the candidate's."""

from __future__ import annotations

import json

from tests.flows.extraction.notes import SOURCE, SOURCE_TEXT
from tests.flows.extraction.script import FlowScript, concept, enum_of


def known_names(found):
    from core.flows.extraction.names import known_names

    return known_names(found)


def rows(*titles: str, aliases: dict[str, list[str]] | None = None) -> list[dict]:
    return [
        {
            "entity_id": f"id-{n}",
            "title": t,
            "path": f"08 - Ideas/{t}.md",
            "short_summary": "",
            "aliases_json": json.dumps((aliases or {}).get(t, [])),
        }
        for n, t in enumerate(titles)
    ]


def vault_names() -> list:
    return known_names(
        rows(
            "Zona de desarrollo próximo",
            "Hábito atómico",
            "Práctica de recuperación",
            "Sistema 1 y Sistema 2",
            "Metacognición",
            "Teoría de la carga cognitiva",
            aliases={"Metacognición": ["Pensar sobre el pensamiento"]},
        )
    )


def test_same_name_up_to_case_accents_and_plural_is_the_same_concept() -> None:
    from core.flows.extraction.names import same_name

    NAMES = vault_names()  # noqa: N806
    assert same_name("Hábitos atómicos", NAMES).row["title"] == "Hábito atómico"
    assert same_name("PRACTICA DE RECUPERACION", NAMES).row["title"] == "Práctica de recuperación"
    assert same_name("pensar sobre el pensamiento", NAMES).row["title"] == "Metacognición"
    assert same_name("Práctica intercalada", NAMES) is None
    assert same_name("🧠", NAMES) is None


def test_acronyms_and_near_spellings_are_candidates_for_the_model() -> None:
    from core.flows.extraction.names import similar_names

    NAMES = vault_names()  # noqa: N806
    found = [r["title"] for r in similar_names("ZDP", NAMES, 0.85, 10)]
    assert found == ["Zona de desarrollo próximo"]
    near = [r["title"] for r in similar_names("Teoria de la carga cognitva", NAMES, 0.85, 10)]
    assert near == ["Teoría de la carga cognitiva"]
    assert similar_names("Aprendizaje espaciado", NAMES, 0.85, 10) == []
    assert similar_names("", NAMES, 0.85, 10) == []


async def test_an_acronym_reaches_the_duplicate_judge_without_embeddings(harness) -> None:
    """'ZDP' shares no indexed word with 'Zona de desarrollo próximo': main's full-text search
    found nothing, the candidate was called novel without asking the model."""
    zdp = """---
entity_id: 7a1d2f3e-0000-4000-8000-000000000001
entity_type: Concept
short_summary: El espacio entre lo que alguien hace solo y lo que hace con ayuda.
---
# Zona de desarrollo próximo

## Concepto
Lo que un aprendiz logra con ayuda y aún no solo.
"""

    def acronym(messages, schema):
        ids = enum_of(schema, "concepts", "[]", "quote_ids")
        card = concept("ZDP", [ids[2]], text="ZDP: con andamiaje se logra más.", short="Andamiaje")
        return {"concepts": [card], "notes": ""}

    script = FlowScript(candidates=acronym)
    h = harness(
        script,
        existing=False,
        sources={SOURCE: SOURCE_TEXT, "08 - Ideas/Zona de desarrollo próximo.md": zdp},
    )
    await h.start()
    assert script.count("duplicate") == 1
    assert "Zona de desarrollo próximo" in script.prompts["duplicate"][0]
