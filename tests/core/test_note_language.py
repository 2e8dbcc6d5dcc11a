"""The note language: the vault's own language by default (no longer Spanish for everyone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.context import FlowContext
from core.note_language import FALLBACK, note_language, prose, vault_language
from core.settings import Settings
from core.store import Store
from core.vault_handle import open_vault
from vault.layout import VaultLayout

ENGLISH = {
    "03 - Sources/The Shallows.md": """---
title: The Shallows
author: Nicholas Carr
---
# The Shallows

## Highlights
> The Net seizes our attention only to scatter it. ^q1

> When we go online, we enter an environment that promotes cursory reading. ^q2
""",
    "08 - Ideas/Attention residue.md": """# Attention residue

When you switch from one task to another, part of your attention stays with the first one.
That leftover thinking lowers the quality of the next thing you do. 🧠
""",
    "Journal/2024-03-02.md": """Walked along the river this morning and thought about why I keep
opening my phone between paragraphs. See [[Attention residue]] and
[Cal Newport's post](https://example.org/deep-work). Perhaps a timer would help.

```python
def pomodoro(minutes=25):
    return minutes * 60
```
""",
    "Journal/2024-03-03.md": """Notes from the seminar: Señor García talked about the café
culture in Madrid (¡qué bonito!) but mostly about how reading slowly changes what we remember.
The group agreed that long-form reading needs protected time every day.
""",
}

SPANISH = {
    "08 - Ideas/Memoria de trabajo.md": """# Memoria de trabajo

La memoria de trabajo retiene pocos elementos a la vez; por eso conviene dividir los problemas
en partes pequeñas y practicar cada una hasta dominarla.
""",
    "08 - Ideas/Olvido.md": """# La curva del olvido

Ebbinghaus mostró que olvidamos deprisa lo que no repasamos. Repasar en intervalos crecientes
mantiene el recuerdo con menos esfuerzo total.
""",
    "Diario/lunes.md": """Hoy leí sobre el aprendizaje espaciado y decidí probarlo con el
vocabulario de alemán. Tengo que anotar los resultados cada semana.
""",
}


def write_vault(root: Path, notes: dict[str, str]) -> Path:
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_an_english_vault_is_english_despite_code_links_and_a_spanish_name(tmp_path) -> None:
    root = write_vault(tmp_path / "v", ENGLISH)
    assert vault_language(root, VaultLayout()) == "en"


def test_a_spanish_vault_is_spanish(tmp_path) -> None:
    root = write_vault(tmp_path / "v", SPANISH)
    assert vault_language(root, VaultLayout()) == "es"


def test_a_vault_without_prose_says_nothing(tmp_path) -> None:
    root = write_vault(
        tmp_path / "v", {"a.md": "```\nx = 1\n```\n", "b.md": "[[Link]] https://x.org", "c.md": ""}
    )
    assert vault_language(root, VaultLayout()) is None


def test_prose_drops_code_links_and_urls() -> None:
    text = "Read [the post](https://a.b/c) and [[Other note]].\n```js\nlet x\n```\nSee `f()`."
    assert prose(text) == "Read the post and . See ."


@pytest.fixture
def open_context(tmp_path: Path):
    def build(notes: dict[str, str], **sections) -> FlowContext:
        root = write_vault(tmp_path / "vault", notes)
        settings = Settings(
            vault={"path": root, **sections.pop("vault", {})},
            data={"directory": tmp_path / "data"},
            **sections,
        )
        store = Store(settings.store_path)
        return FlowContext(settings, None, store, open_vault(settings, store, None))

    return build


def test_concepts_and_lessons_of_an_english_vault_are_english_by_default(open_context) -> None:
    context = open_context(ENGLISH)
    assert context.settings.flows.extraction.language == "en"
    assert context.settings.flows.lesson.language == "en"


def test_an_explicit_language_wins_and_nothing_is_detected(open_context, monkeypatch) -> None:
    import core.note_language as module

    monkeypatch.setattr(module, "vault_language", lambda *_: pytest.fail("detected anyway"))
    context = open_context(ENGLISH, vault={"language": "de"}, flows={"lesson": {"language": "fr"}})
    assert context.settings.flows.extraction.language == "de"
    assert context.settings.flows.lesson.language == "fr"


def test_without_a_vault_notes_are_english() -> None:
    assert note_language(Settings(), None) == FALLBACK == "en"
    assert Settings().flows.extraction.language == Settings().flows.lesson.language == ""


def test_a_french_concept_note_gets_english_headings_and_reads_back() -> None:
    from core.concept_notes import parse_concept_note, render_concept_note
    from core.domain import Concept
    from vault.note import parse_note

    concept = Concept(
        id="c-1",
        title="Mémoire de travail",
        concept="Elle retient peu.",
        analysis="Découper les problèmes.",
        language="fr",
    )
    text = render_concept_note(concept, [], {})
    assert "## Concept\n" in text and "## Concepto" not in text
    parsed = parse_concept_note(parse_note("m.md", text.encode()))
    assert (parsed.concept.language, parsed.concept.concept) == ("fr", "Elle retient peu.")
    # a note written before, with the Spanish headings, still reads
    older = text
    for english, spanish in zip(
        ("Concept\n", "Analysis", "Connections", "Source"),
        ("Concepto\n", "Análisis", "Conexiones", "Fuente"),
        strict=True,
    ):
        older = older.replace(f"## {english}", f"## {spanish}")
    parsed = parse_concept_note(parse_note("m.md", older.encode()))
    assert parsed.concept.analysis == "Découper les problèmes."
