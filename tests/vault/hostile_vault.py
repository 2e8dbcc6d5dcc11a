"""A realistic hostile vault, written by hand: every shape issue 15 found noema mishandling.

`build(tmp_path)` writes it and returns its root. What each note holds is spelled out below,
and so is what the tests expect of it (`EXPECTED_LINKS`, `INDEXED`, ...): nothing here is
derived from noema's own rules.

- `.obsidian/app.json`: Markdown links, shortest paths, excluded files (a folder prefix and a
  regex), an attachments folder; `.obsidian/templates.json`: the templates folder.
- A symlink to a file outside the vault (a source), and a symlinked folder outside; a symlink
  to a note inside the vault (read, as Obsidian reads it) and to a folder inside (not followed:
  its notes are read where they are).
- A file name in Unicode NFD (as macOS writes it) linked in NFC.
- Two notes whose names differ only in case, in the same folder; two notes with one name in
  two folders; path-qualified links; Markdown links without `.md` and with `%20`.
- Links in 4-space indented code (not links) and in a list item's indented paragraph (links).
- Attachments (`![[diagram.png]]`, `![Paper](paper.pdf)`).
- Malformed, empty and binary notes in the concepts, sources, lessons and inbox folders.
- A podcast source (`[hh:mm:ss]` quotes), block ids alone on the line after a quote.
- Names with emoji, Japanese, Cyrillic and Arabic.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

IDEAS = "08 - Ideas"
SOURCES = "03 - Sources"
NEURO = "10 - Curriculum/Neuro"
CAFE_NFD = unicodedata.normalize("NFD", "Café")
"""The NFD spelling: `Cafe` + U+0301 COMBINING ACUTE ACCENT."""
CAFE_PATH = f"{IDEAS}/{CAFE_NFD}.md"
PODCAST = f"{SOURCES}/The Knowledge Project - Compounding.md"
SECRET_TEXT = "SECRET-OUTSIDE-THE-VAULT compounding"


def concept(entity_id: str, title: str, body: str = "", language: str = "es") -> str:
    heads = (
        ("Concept", "Analysis", "Connections", "Source")
        if language == "en"
        else ("Concepto", "Análisis", "Conexiones", "Fuente")
    )
    return (
        f"---\nentity_id: {entity_id}\nentity_type: Concept\nshort_summary: Sobre {title}.\n"
        f"summary: Resumen de {title}.\naliases: []\nconcept_relations: {{}}\n---\n"
        f"# {title}\n\n## {heads[0]}\n{body or 'Texto.'}\n\n## {heads[1]}\nAnálisis.\n\n"
        f"## {heads[2]}\n- RELATES_TO:\n\n## {heads[3]}\n"
    )


INICIO = """# Inicio

Enlaces: [[Dopamina]], [[dopamina|minúscula]], [[Neuro/Dopamina]],
[[10 - Curriculum/Neuro/Dopamina]], [[08 - Ideas/Psicología/memoria de Trabajo]],
[[08 - Ideas/Psicología/Memoria de trabajo]], [[Café]], [[Three laws of motion]],
[[Three laws of motion.md#First law]], [Leyes](Three%20laws%20of%20motion),
[Leyes md](Three%20laws%20of%20motion.md), [Ruta](08%20-%20Ideas/Dopamina.md),
[[🧠 Memoria]], [[記憶の宮殿]], [[Память]], [[الذاكرة]], ![[diagram.png]],
![Paper](paper.pdf), [[Attachments/diagram.png]], [[No existe]],
[[The Knowledge Project - Compounding#^kp-habits]], [[#Enlaces]], [web](https://obsidian.md)

    [[En código indentado]] [md](En%20c%C3%B3digo.md)

`[[En código en línea]]`

- una lista

    [[Secreto]] en el párrafo de un elemento de lista
"""

PLAN = """# Plan

- [[Dopamina]] (la de esta carpeta)
- [md](Dopamina.md)
- [relativo](../../08%20-%20Ideas/Dopamina.md)
- [[../../Inicio]]
"""

ATENCION = """---
entity_id: 00000000-0000-4000-8000-000000000011
entity_type: Concept
aliases: [Attention, Atención selectiva]
concept_relations: {}
---
# Atención

## Concepto
Ver [[Memoria de trabajo]] y [[memoria de Trabajo]].

## Análisis
A.

## Conexiones
- RELATES_TO:

## Fuente
"""

PODCAST_TEXT = """---
title: The Knowledge Project - Compounding
author: Shane Parrish
category: podcast
---
# The Knowledge Project - Compounding

## Highlights
- [00:12:34] Compounding works on knowledge the way it works on money.
- [01:02:03](https://share.snipd.com/snip/abc) The first rule of compounding is never to interrupt it unnecessarily.
- (05:07) Small daily improvements look like nothing until they suddenly look like everything.

> [00:45:10] Habits are the compound interest of self-improvement.
^kp-habits

> A quote whose block id sits after a blank line.

^kp-blank

> A quote without any id.
"""

ATOMIC = """---
title: Atomic Habits
author: James Clear
category: book
processed_date: 2024-05-01T10:00:00+00:00
---
# Atomic Habits

## Highlights
> You do not rise to the level of your goals. You fall to the level of your systems. ^ah-systems
"""

MALFORMED_SOURCE = """---
title: Mal: formado: [
author: x
---
## Highlights
> Una cita que no debe extraerse mientras la nota esté rota.
"""


def files() -> dict[str, str | bytes]:
    """Every regular file of the vault: path -> content."""
    app = {
        "useMarkdownLinks": True,
        "newLinkFormat": "shortest",
        "userIgnoreFilters": ["Private/", "/\\.excalidraw\\.md$/"],
        "attachmentFolderPath": "Attachments",
        "alwaysUpdateLinks": True,
    }
    return {
        ".obsidian/app.json": json.dumps(app, indent=2),
        ".obsidian/templates.json": json.dumps({"folder": "Plantillas"}),
        ".trash/Borrada.md": "[[Dopamina]]",
        "Plantillas/Concepto.md": "---\nentity_type: Concept\n---\n# {{title}}\n[[Dopamina]]\n",
        "Private/Diario.md": "Diario: [[Dopamina]]\n",
        "Boceto.excalidraw.md": "excalidraw [[Dopamina]]\n",
        "Attachments/diagram.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "Attachments/paper.pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n",
        "Attachments/Leeme.md": "Un .md en la carpeta de adjuntos: [[Dopamina]]\n",
        "Inicio.md": INICIO,
        f"{NEURO}/Dopamina.md": "# Dopamina (currículo)\n",
        f"{NEURO}/Plan.md": PLAN,
        f"{IDEAS}/Dopamina.md": concept("00000000-0000-4000-8000-000000000001", "Dopamina"),
        f"{IDEAS}/Psicología/Memoria de trabajo.md": concept(
            "00000000-0000-4000-8000-000000000002", "Memoria de trabajo"
        ),
        f"{IDEAS}/Psicología/memoria de Trabajo.md": concept(
            "00000000-0000-4000-8000-000000000003", "memoria de Trabajo"
        ),
        f"{IDEAS}/Psicología/Atención.md": ATENCION,
        CAFE_PATH: concept("00000000-0000-4000-8000-000000000004", "Café"),
        f"{IDEAS}/Three laws of motion.md": concept(
            "00000000-0000-4000-8000-000000000005",
            "Three laws of motion",
            "### First law\nInertia.",
            "en",
        ),
        f"{IDEAS}/🧠 Memoria.md": concept("00000000-0000-4000-8000-000000000006", "🧠 Memoria"),
        f"{IDEAS}/記憶の宮殿.md": concept("00000000-0000-4000-8000-000000000007", "記憶の宮殿"),
        f"{IDEAS}/Память.md": concept("00000000-0000-4000-8000-000000000008", "Память"),
        f"{IDEAS}/الذاكرة.md": concept("00000000-0000-4000-8000-000000000009", "الذاكرة"),
        f"{IDEAS}/Roto.md": "---\nentity_id: [sin cerrar\n---\n# Roto\n",
        f"{IDEAS}/Vacío.md": "",
        f"{IDEAS}/Binario.md": b"\x00\x01\x02 not text",
        f"{SOURCES}/Mal formado.md": MALFORMED_SOURCE,
        f"{SOURCES}/Atomic Habits.md": ATOMIC,
        PODCAST: PODCAST_TEXT,
        "09 - Lessons/Lección rota.md": "---\n- a\n- b\n---\n# Lección\n",
        "00 - Inbox/Vacía.md": "   \n",
    }


def build(base: Path) -> Path:
    """Write the vault under `base/vault` (and what lies outside it under `base/outside`)."""
    root = base / "vault"
    outside = base / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(
        f"---\ntitle: Secret\n---\n## Highlights\n> {SECRET_TEXT}\n", encoding="utf-8"
    )
    (outside / "dir" / "Fuera.md").write_text(f"# Fuera\n{SECRET_TEXT}\n", encoding="utf-8")
    for rel, content in files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    (root / SOURCES / "Secreto.md").symlink_to(outside / "secret.md")
    (root / IDEAS / "Externo").symlink_to(outside / "dir", target_is_directory=True)
    (root / "00 - Inbox" / "Inicio enlazado.md").symlink_to(Path("..") / "Inicio.md")
    (root / "00 - Inbox" / "Ideas enlazadas").symlink_to(
        Path("..") / IDEAS, target_is_directory=True
    )
    return root


CONCEPTS = sorted(
    [
        f"{IDEAS}/Dopamina.md",
        f"{IDEAS}/Psicología/Memoria de trabajo.md",
        f"{IDEAS}/Psicología/memoria de Trabajo.md",
        f"{IDEAS}/Psicología/Atención.md",
        CAFE_PATH,
        f"{IDEAS}/Three laws of motion.md",
        f"{IDEAS}/🧠 Memoria.md",
        f"{IDEAS}/記憶の宮殿.md",
        f"{IDEAS}/Память.md",
        f"{IDEAS}/الذاكرة.md",
    ]
)
"""Concepts: the concept folder's notes, without the malformed, empty and binary ones."""

INDEXED = sorted(
    [
        *CONCEPTS,
        "Inicio.md",
        "00 - Inbox/Inicio enlazado.md",
        "00 - Inbox/Vacía.md",
        f"{NEURO}/Dopamina.md",
        f"{NEURO}/Plan.md",
        f"{IDEAS}/Roto.md",
        f"{IDEAS}/Vacío.md",
        f"{SOURCES}/Mal formado.md",
        f"{SOURCES}/Atomic Habits.md",
        PODCAST,
        "09 - Lessons/Lección rota.md",
    ]
)
"""The notes the index holds (a row in `notes`); the binary note is reported, not indexed."""

SKIPPED = {
    f"{SOURCES}/Secreto.md": "outside the vault",
    f"{IDEAS}/Externo": "outside the vault",
    "00 - Inbox/Ideas enlazadas": "symlinked folder",
}
"""Entries not read, and a word of the reason given for each."""

PROBLEMS = sorted(
    [
        f"{IDEAS}/Roto.md",
        f"{IDEAS}/Vacío.md",
        f"{IDEAS}/Binario.md",
        f"{SOURCES}/Mal formado.md",
        "09 - Lessons/Lección rota.md",
        "00 - Inbox/Vacía.md",
    ]
)
"""Notes reported as needing a fix."""

ATTACHMENTS = ["Attachments/diagram.png", "Attachments/paper.pdf"]

EXPECTED_LINKS: dict[str, list[tuple[str, str | None]]] = {
    "Inicio.md": [
        ("Dopamina", f"{IDEAS}/Dopamina.md"),  # two notes: the shorter path (no same-folder one)
        ("dopamina", f"{IDEAS}/Dopamina.md"),
        ("Neuro/Dopamina", f"{NEURO}/Dopamina.md"),  # the folder part chooses
        (f"{NEURO}/Dopamina", f"{NEURO}/Dopamina.md"),
        (f"{IDEAS}/Psicología/memoria de Trabajo", f"{IDEAS}/Psicología/memoria de Trabajo.md"),
        (f"{IDEAS}/Psicología/Memoria de trabajo", f"{IDEAS}/Psicología/Memoria de trabajo.md"),
        ("Café", CAFE_PATH),  # NFC link, NFD file: the real (NFD) name
        ("Three laws of motion", f"{IDEAS}/Three laws of motion.md"),
        ("Three laws of motion.md", f"{IDEAS}/Three laws of motion.md"),
        ("Three laws of motion", f"{IDEAS}/Three laws of motion.md"),  # Markdown, no .md
        ("Three laws of motion.md", f"{IDEAS}/Three laws of motion.md"),
        (f"{IDEAS}/Dopamina.md", f"{IDEAS}/Dopamina.md"),
        ("🧠 Memoria", f"{IDEAS}/🧠 Memoria.md"),
        ("記憶の宮殿", f"{IDEAS}/記憶の宮殿.md"),
        ("Память", f"{IDEAS}/Память.md"),
        ("الذاكرة", f"{IDEAS}/الذاكرة.md"),
        ("diagram.png", "Attachments/diagram.png"),
        ("paper.pdf", "Attachments/paper.pdf"),
        ("Attachments/diagram.png", "Attachments/diagram.png"),
        ("No existe", None),
        ("The Knowledge Project - Compounding", PODCAST),
        ("", "Inicio.md"),  # [[#Enlaces]]: the note itself
        ("Secreto", None),  # the symlink out is no file of the vault
    ],
    f"{NEURO}/Plan.md": [
        ("Dopamina", f"{NEURO}/Dopamina.md"),  # its own folder wins
        ("Dopamina.md", f"{NEURO}/Dopamina.md"),
        ("../../08 - Ideas/Dopamina.md", f"{IDEAS}/Dopamina.md"),
        ("../../Inicio", "Inicio.md"),
    ],
    f"{IDEAS}/Psicología/Atención.md": [
        ("Memoria de trabajo", f"{IDEAS}/Psicología/Memoria de trabajo.md"),
        ("memoria de Trabajo", f"{IDEAS}/Psicología/memoria de Trabajo.md"),
    ],
}
"""Per note, each link in order: (target as written, the file it opens; None: unresolved).
The code spans and indented code of Inicio hold no link."""

QUOTES = [
    ("00:12:34", "Compounding works on knowledge the way it works on money.", None),
    ("01:02:03", "The first rule of compounding is never to interrupt it unnecessarily.", None),
    (
        "05:07",
        "Small daily improvements look like nothing until they suddenly look like everything.",
        None,
    ),
    ("00:45:10", "Habits are the compound interest of self-improvement.", "kp-habits"),
    (None, "A quote whose block id sits after a blank line.", "kp-blank"),
    (None, "A quote without any id.", None),
]
"""The podcast's quotes: (location, text, block id)."""
