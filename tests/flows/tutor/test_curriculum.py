"""The curriculum from the sample vault, and guidelines built from concept notes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.curriculum import (
    concept_lesson,
    list_concepts,
    load_curriculum,
    subjects,
    subtopics,
    topics,
    with_concepts,
)
from core.store import Store
from vault.index import VaultIndex

SAMPLE = Path(__file__).resolve().parents[3] / "tui" / "sample_vault"


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Store, Path]:
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    store = Store(tmp_path / "store.sqlite3")
    VaultIndex(store, root).sync_files()
    return store, root


def test_curriculum_pickers_from_the_sample_vault() -> None:
    lessons = load_curriculum(SAMPLE, "10 - Curriculum")
    assert subjects(lessons) == ["Productividad", "Psicología del aprendizaje"]
    assert topics(lessons, "Psicología del aprendizaje") == ["Memoria", "Metacognición"]
    memory = subtopics(lessons, "Psicología del aprendizaje", "Memoria")
    assert [x.title for x in memory] == ["Práctica de recuperación", "Repetición espaciada"]
    lesson = memory[0]
    assert (
        lesson.path
        == "10 - Curriculum/Psicología del aprendizaje/Memoria/Práctica de recuperación.md"
    )
    assert lesson.grade == "intro"
    assert lesson.objectives[0].startswith("Distinguir la relectura")
    assert "Convertir unos apuntes" in lesson.guideline and "subject:" not in lesson.guideline
    assert lesson.concept_titles == ["Práctica de recuperación", "Práctica intercalada"]


def test_concepts_resolve_against_the_index(indexed: tuple[Store, Path]) -> None:
    store, root = indexed
    lesson = load_curriculum(root, "10 - Curriculum")
    retrieval = next(x for x in lesson if x.title == "Práctica de recuperación")
    with_concepts(store, retrieval)
    assert [c.title for c in retrieval.concepts] == [
        "Práctica de recuperación",
        "Práctica intercalada",
    ]
    info = retrieval.topic_info()
    assert info["concepts"][0]["id"] == "4dc0bbe6-17cb-57c2-8077-b5a8851e442e"


def test_concept_guideline_has_relations_and_quotes(indexed: tuple[Store, Path]) -> None:
    store, root = indexed
    concept = next(c for c in list_concepts(store) if c.title == "Práctica de recuperación")
    lesson = concept_lesson(store, root, concept.id)
    assert lesson.source == "concept" and lesson.concepts[0].id == concept.id
    text = lesson.guideline
    assert "Evocar la información" in text
    assert "SUPPORTS: Repetición espaciada" in text
    assert "## Quotes" in text and "(Apréndetelo)" in text
    with pytest.raises(KeyError):
        concept_lesson(store, root, "no-such-id")
