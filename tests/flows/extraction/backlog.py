"""A vault with a backlog of unprocessed sources, and settings for a pool of fake servers.

Shared by the bulk extraction tests and `bench/pool.py`. The sources are short reading notes
in several languages and scripts, with the titles people give them (accents, emoji, `&`,
quotes, a CJK title), each with a few quotes; the servers answer with
`tests.servers.responders.extraction`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tui.demo import sample_vault

BOOKS = [
    (
        "Make It Stick",
        "Peter C. Brown",
        [
            "Retrieval practice strengthens memory more than rereading does.",
            "Spacing out practice makes learning more durable than massed practice.",
        ],
    ),
    (
        "Pensar rápido, pensar despacio",
        "Daniel Kahneman",
        [
            "El Sistema 1 opera de manera rápida y automática, con poco o ningún esfuerzo.",
            "La ilusión de validez persiste aunque conozcamos las estadísticas.",
        ],
    ),
    (
        "L’Art de la guerre — notes",
        "Sun Tzu",
        [
            "Connais ton ennemi et connais-toi toi-même.",
            "La suprême excellence consiste à briser la résistance de l’ennemi sans combattre.",
        ],
    ),
    (
        "Thinking in Systems 🌱",
        "Donella Meadows",
        [
            "A system is more than the sum of its parts.",
            "Delays in feedback loops are critical determinants of system behavior.",
        ],
    ),
    (
        "Q&A: «Deep» Learning?",
        "Ian Goodfellow",
        [
            "Representation learning discovers the features needed for a task.",
            "Depth lets a model reuse features at many levels of abstraction.",
        ],
    ),
    (
        "学習の科学",
        "山田太郎",
        ["間隔をあけた復習は記憶の定着を助ける。", "テストは学習そのものを強化する。"],
    ),
    (
        "Die Kunst des klaren Denkens",
        "Rolf Dobelli",
        [
            "Der Survivorship Bias lässt uns die Erfolgsaussichten überschätzen.",
            "Wir halten an Investitionen fest, weil wir schon so viel hineingesteckt haben.",
        ],
    ),
    (
        "Atomic Habits (2nd read)",
        "James Clear",
        [
            "Habits are the compound interest of self-improvement.",
            "You do not rise to the level of your goals; you fall to the level of your systems.",
        ],
    ),
]


def source_note(title: str, author: str, quotes: list[str], part: int) -> str:
    lines = [f"> {quote} ^q{part}-{i}\n" for i, quote in enumerate(quotes)]
    return (
        f'---\ntitle: "{title.replace(chr(34), chr(39))} · {part}"\nauthor: {author}\n'
        f"category: book\n---\n# {title}\n\n## Highlights\n" + "\n".join(lines)
    )


def backlog_vault(root: Path, count: int) -> list[str]:
    """A copy of the sample vault (its own sources already processed) with `count` new
    unprocessed sources; their vault-relative paths."""
    shutil.copytree(sample_vault(), root)
    made = []
    for n in range(count):
        title, author, quotes = BOOKS[n % len(BOOKS)]
        safe = "".join(c for c in title if c not in '/\\:?*"<>|')
        rel = f"03 - Sources/{safe} {n + 1:03d}.md"
        (root / rel).write_text(source_note(title, author, quotes, n + 1), encoding="utf-8")
        made.append(rel)
    return made


def pool_settings(
    path: Path,
    vault: Path,
    data: Path,
    urls: list[str],
    *,
    slots: int = 1,
    cooldown_s: float = 20.0,
    extra: str = "",
) -> Path:
    """A settings file whose default role is a pool of OpenAI-compatible servers."""
    deployments = ",\n".join(
        f'  {{model = "openai/gpt-fake", base_url = "{url}/v1", max_parallel = {slots}}}'
        for url in urls
    )
    path.write_text(
        f'[vault]\npath = "{vault}"\n[data]\ndirectory = "{data}"\n'
        f'[models]\nmodel = "openai/gpt-fake"\nbase_url = "{urls[0]}/v1"\nbackoff_s = 0.2\n'
        f"deployments = [\n{deployments}\n]\n"
        f"[models.pool]\ncooldown_s = {cooldown_s}\n"
        f'[flows.extraction]\nlanguage = "es"\nmax_critique_iterations = 1\n{extra}',
        encoding="utf-8",
    )
    return path
