"""The language noema writes notes in: `vault.language` when set, else the language most of the
vault's own notes are written in (lingua over a sample), else English.

Concept notes and lessons used to default to Spanish (the specifications' origin); a user
whose vault is English got Spanish notes. Detection reads at most `SAMPLE_NOTES` notes spread
over the vault (their prose only: no front matter, code, links or URLs) and runs once per
process, when a flow first needs the language. lingua's models cost ~60 MB the first time
(measured on the sample vault, all languages, low-accuracy mode), so nothing loads them at
start-up.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from core.settings import Settings
from vault.layout import VaultLayout
from vault.note import NoteUnreadable, read_note

if TYPE_CHECKING:
    from core.vault_handle import VaultHandle

FALLBACK = "en"
"""The language of notes when the vault has no prose to detect one from."""
SAMPLE_NOTES = 40
"""At most this many notes are read, spread evenly over the vault's sorted paths."""
SAMPLE_CHARS = 2000
"""At most this many characters of prose per note go to the detector."""
MIN_CHARS = 40
"""Notes with less prose than this say nothing reliable about their language."""
NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|!?\[\[[^\]]*\]\]|\[([^\]]*)\]\([^)]*\)|https?://\S+|^#+\s|^>\s?",
    re.DOTALL | re.MULTILINE,
)
"""Code, formulas, embeds and wiki links, URLs and markup: not the writer's language."""

_detected: dict[Path, str] = {}
"""Vault root -> its detected note language (once per process)."""
_lock = threading.Lock()


def prose(body: str) -> str:
    """The prose of a note's body (a markdown link keeps its text)."""
    text = NOT_PROSE.sub(lambda m: m.group(1) or " ", body)
    return re.sub(r"\s+", " ", text).strip()[:SAMPLE_CHARS]


def sample_paths(root: Path, layout: VaultLayout, limit: int = SAMPLE_NOTES) -> list[str]:
    """Up to `limit` note paths spread evenly over the vault (archived notes left out)."""
    paths = [p for p in layout.iter_notes(root) if layout.kind_of(p) != "archive"]
    if len(paths) <= limit:
        return paths
    step = len(paths) / limit
    return [paths[int(i * step)] for i in range(limit)]


def detect_language(texts: list[str]) -> str | None:
    """The ISO 639-1 code of the language most of the texts' prose is in (weighted by
    length), or None when none has enough prose."""
    from lingua import LanguageDetectorBuilder

    texts = [t for t in texts if len(t) >= MIN_CHARS]
    if not texts:
        return None
    detector = LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()
    votes: Counter[str] = Counter()
    for text, language in zip(texts, detector.detect_languages_in_parallel_of(texts), strict=True):
        if language is not None:
            votes[language.iso_code_639_1.name.lower()] += len(text)
    return votes.most_common(1)[0][0] if votes else None


def vault_language(root: Path, layout: VaultLayout) -> str | None:
    """The language the vault's notes are written in (None: no prose to tell)."""
    texts = []
    for rel in sample_paths(root, layout):
        try:
            texts.append(prose(read_note(root, rel, layout.max_note_bytes).body))
        except (NoteUnreadable, OSError):
            continue
    return detect_language(texts)


def note_language(settings: Settings, vault: VaultHandle | None) -> str:
    """`vault.language`, else the language of the vault's notes (detected once per process;
    slow the first time: call it off the UI), else English."""
    if settings.vault.language:
        return settings.vault.language
    if vault is None:
        return FALLBACK
    with _lock:
        if vault.root not in _detected:
            _detected[vault.root] = vault_language(vault.root, vault.layout) or FALLBACK
        return _detected[vault.root]


def resolve_note_language(settings: Settings, vault: VaultHandle | None) -> Settings:
    """The settings with the note language wherever one was left to the vault (a copy; the
    settings given are unchanged, and returned as they are when nothing is left open)."""
    flows = settings.flows
    open_sections = [name for name in ("extraction", "lesson") if not getattr(flows, name).language]
    if not open_sections:
        return settings
    language = note_language(settings, vault)
    changes = {
        name: getattr(flows, name).model_copy(update={"language": language})
        for name in open_sections
    }
    return settings.model_copy(update={"flows": flows.model_copy(update=changes)})
