"""Vault-wide link rewriting for renames and merges, with a dry run the UI can show."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from vault.layout import VaultLayout
from vault.links import note_name, rewrite_links
from vault.note import NoteUnreadable, read_note
from vault.writer import ConflictError, VaultWriter


@dataclass(frozen=True)
class Change:
    """One link rewritten in one note."""

    path: str
    line: int
    """1-based line number of the link."""
    before: str
    after: str


@dataclass
class RewritePlan:
    """Every change a rename/merge of `old` into `new` makes; `apply_rewrite` writes it."""

    old: str
    new: str
    changes: list[Change] = field(default_factory=list)
    texts: dict[str, tuple[str, str]] = field(default_factory=dict)
    """path -> (hash read, new text)."""
    skipped: list[str] = field(default_factory=list)
    """Notes that could not be read (left untouched)."""


def plan_rewrite(root: Path, layout: VaultLayout, old: str, new: str) -> RewritePlan:
    """Dry run: the changes that pointing every link at `old` to `new` would make."""
    plan = RewritePlan(old, new)
    needles = {note_name(old).lower(), quote(note_name(old)).lower()}
    for rel in layout.iter_notes(Path(root)):
        try:
            note = read_note(Path(root), rel, layout.max_note_bytes)
        except NoteUnreadable as exc:
            plan.skipped.append(str(exc))
            continue
        lowered = note.text.lower()
        if not any(needle in lowered for needle in needles):
            continue
        text, edits = rewrite_links(note.text, old, new, rel)
        if not edits:
            continue
        plan.texts[rel] = (note.hash, text)
        for edit in edits:
            line = note.text.count("\n", 0, edit.start) + 1
            plan.changes.append(Change(rel, line, edit.before, edit.after))
    return plan


def apply_rewrite(writer: VaultWriter, plan: RewritePlan) -> list[str]:
    """Write the planned texts. Every file is conflict-checked before any is written."""
    for rel, (expected, _) in plan.texts.items():
        if writer.current_hash(rel) != expected:
            raise ConflictError(f"{rel} changed since the rewrite was planned; plan it again")
    written = []
    for rel, (expected, text) in plan.texts.items():
        writer.write(rel, text, expected_hash=expected)
        written.append(rel)
    return written
