"""Vault-wide link rewriting for renames and merges, with a dry run the UI can show."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from vault.layout import VaultLayout
from vault.linkformat import encode_href
from vault.links import note_name, rewrite_links
from vault.note import NoteUnreadable, read_note
from vault.resolve import LinkResolver, name_key
from vault.scan import VaultScan, scan_vault
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


def link_needles(old: str) -> set[str]:
    """Texts one of which a note must hold (compared by `name_key`) to link to `old`."""
    name = name_key(note_name(old))
    return {name, quote(name).lower(), encode_href(name)}


def resolvers(scan: VaultScan, moves: dict[str, str]) -> tuple[LinkResolver, LinkResolver]:
    """How links resolve before and after moving files (`moves`: old path -> new path)."""
    paths = [*scan.notes, *scan.files]
    after = [p for p in paths if p not in moves] + list(moves.values())
    return LinkResolver(paths), LinkResolver(after)


def plan_rewrite(root: Path, layout: VaultLayout, old: str, new: str) -> RewritePlan:
    """Dry run: the changes that pointing every link at `old` to `new` would make (exactly
    the links Obsidian resolves to `old`)."""
    plan = RewritePlan(old, new)
    needles = link_needles(old)
    scan = scan_vault(Path(root), layout)
    before, after = resolvers(scan, {old: new})
    for rel in scan.notes:
        try:
            note = read_note(Path(root), rel, layout.max_note_bytes)
        except NoteUnreadable as exc:
            plan.skipped.append(str(exc))
            continue
        lowered = name_key(note.text)
        if not any(needle in lowered for needle in needles):
            continue
        text, edits = rewrite_links(note.text, old, new, rel, before=before, after=after)
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
