"""Deterministic variants (case, accent, punctuation, Spanish and English plurals) and acronyms."""

from __future__ import annotations

import pytest

from core.flows.normalization.variants import (
    NamedConcept,
    acronym_candidates,
    deterministic_merges,
    fold,
    variant_key,
)

SAME = [
    ("Metacognición", "metacognicion"),
    ("Hábitos atómicos", "Hábito atómico"),
    ("Lecciones aprendidas", "Lección aprendida"),
    ("Luces", "Luz"),
    ("Clases invertidas", "Clase invertida"),
    ("Spaced repetition", "spaced-repetitions"),
    ("Theories of mind", "Theory of mind"),
    ("Practices", "practice"),
    ("Boxes", "Box"),
    ("Processes", "Process"),
    ("Deep Work", "deep work!"),
    ("Ideas", "Idea"),
    ("Tribus urbanas", "Tribu urbana"),
    ("Status", "status"),
]
DIFFERENT = [
    ("Hábito atómico", "Hábito"),
    ("Deep Work", "Work"),
    ("Analysis", "Analyst"),
    ("Memoria de trabajo", "Memoria"),
    ("Class", "Clash"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_variants_share_a_key(a: str, b: str) -> None:
    assert variant_key(a) == variant_key(b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_names_keep_different_keys(a: str, b: str) -> None:
    assert variant_key(a) != variant_key(b)


def test_fold_strips_accents_case_and_punctuation() -> None:
    assert fold("  Zona de desarrollo — Próximo! ") == "zona de desarrollo proximo"


def test_deterministic_merges_pair_concepts_not_names_of_one_concept() -> None:
    names = [
        NamedConcept("Metacognición", "m1"),
        NamedConcept("metacognicion", "m2"),
        NamedConcept("Metacognicion", "m1"),  # an alias of m1: same concept, no merge
        NamedConcept("Hábitos atómicos", "h1"),
        NamedConcept("Hábito atómico", "h2"),
        NamedConcept("Deep Work", "d1"),
    ]
    merges = deterministic_merges(names)
    pairs = {frozenset((m.a_id, m.b_id)) for m in merges}
    assert pairs == {frozenset({"m1", "m2"}), frozenset({"h1", "h2"})}
    reasons = {m.a_id: m.reason for m in merges}
    assert "accents" in reasons["m1"] and "plural" in reasons["h1"]


def test_acronym_candidates_point_at_expansions_in_the_list() -> None:
    names = [
        NamedConcept("ZDP", "z"),
        NamedConcept("Zona de desarrollo próximo", "zdp"),
        NamedConcept("Zona de descanso", "zd"),
        NamedConcept("SRS", "s"),  # no expansion in the list
    ]
    assert acronym_candidates(names) == {"z": {"zdp"}}


@pytest.mark.parametrize(
    ("a", "b", "language"),
    [
        ("La dopamina", "Dopamina", "es"),
        ("El sesgo de confirmación", "Sesgo de confirmación", "es"),
        ("The habit loop", "Habit loop", "en"),
        ("An anchor", "Anchors", "en"),
        ("L'attention", "Attention", "fr"),
        ("Die Aufmerksamkeit", "Aufmerksamkeit", "de"),
        ("La dopamina", "dopamina", None),  # language unknown: Spanish and English articles
    ],
)
def test_a_leading_article_is_not_part_of_the_name(a, b, language) -> None:
    assert variant_key(a, language) == variant_key(b, language)


def test_articles_are_dropped_only_at_the_start_and_per_language() -> None:
    assert variant_key("Teoría de la mente", "es") != variant_key("Teoría de mente", "es")
    assert variant_key("Die Hard", "en") != variant_key("Hard", "en")  # not an English article
    assert variant_key("A", "en") == "a"  # nothing would be left
    merges = deterministic_merges(
        [NamedConcept("La dopamina", "d1", "es"), NamedConcept("Dopamina", "d2", "es")]
    )
    assert [(m.a_id, m.b_id) for m in merges] == [("d1", "d2")]
    assert merges[0].reason == "same name with or without a leading article"
