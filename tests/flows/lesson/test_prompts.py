"""The lesson's prompts in cache order: what a lesson's calls share comes first."""

from __future__ import annotations

import os

from core.flows.lesson.prompts import Plan, PlannedSection, expander_messages, fix_messages

SOURCES = "> Recordar sin mirar fortalece la memoria. — «Cómo aprendemos», p. 12\n> 记忆 🧠"
PLAN = Plan(
    title="Práctica de recuperación",
    objectives=["explicar el efecto"],
    sections=[
        PlannedSection(title="Motivación", goal="Por qué importa"),
        PlannedSection(title="Práctica", goal="Ejercicios <<<no>>>"),
    ],
)


def shared_prefix(first: list[dict], second: list[dict]) -> str:
    """The text two calls' messages have in common from their start (what a cache reuses)."""
    return os.path.commonprefix(["\n".join(m["content"] for m in call) for call in (first, second)])


def test_every_sections_call_shares_the_outline_and_the_sources_before_its_section():
    first = expander_messages(PLAN, 0, "es", SOURCES, 80)
    second = expander_messages(PLAN, 1, "es", SOURCES, 80)
    shared = shared_prefix(first, second)
    assert "2. Práctica" in shared and "记忆 🧠" in shared
    assert "Write section 2: Práctica" in second[-1]["content"]


def test_every_sections_fix_shares_the_sources_before_its_problems():
    first = fix_messages("Texto uno.", "es", "demasiado corto", SOURCES)
    second = fix_messages("Texto dos.", "es", "contradice la fuente", SOURCES)
    assert "记忆 🧠" in shared_prefix(first, second)
