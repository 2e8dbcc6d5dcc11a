"""One walk over the vault: its notes, its other files, and what was skipped and why.

Nothing outside the vault root is ever read: the walk starts at the resolved root and never
follows a symlinked folder; a symlinked file is kept only when its target resolves inside the
root. Every entry left out for a reason the user may not expect (a symlink out, a symlinked
folder, a broken link) is reported, so `noema index` and `noema doctor` can say so.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from vault.containment import inside
from vault.layout import VaultLayout


@dataclass(frozen=True)
class Skipped:
    """An entry of the vault folder that noema does not read."""

    path: str
    """Vault-relative POSIX path of the entry."""
    reason: str


@dataclass
class VaultScan:
    """What one walk found."""

    notes: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Notes noema reads: path -> (mtime_ns, size)."""
    files: dict[str, str] = field(default_factory=dict)
    """Other files Obsidian knows (links to them resolve): path -> "attachment" or "ignored"
    (a note noema does not read: templates, excluded files)."""
    skipped: list[Skipped] = field(default_factory=list)
    """Entries left out because of where they lead (symlinks)."""
    excluded: Counter[str] = field(default_factory=Counter)
    """How many notes each exclusion rule kept out (reason -> count)."""


def scan_vault(root: Path, layout: VaultLayout) -> VaultScan:
    """Walk the vault (sorted, deterministic) and classify every entry."""
    base = Path(root).resolve()
    scan = VaultScan()
    _walk(base, base, "", layout, scan)
    return scan


def _walk(base: Path, folder: Path, prefix: str, layout: VaultLayout, scan: VaultScan) -> None:
    try:
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda e: e.name)
    except OSError as exc:
        scan.skipped.append(Skipped(prefix.rstrip("/") or ".", f"cannot list ({exc.strerror})"))
        return
    for entry in entries:
        rel = prefix + entry.name
        if layout.is_hidden(rel):
            continue
        if entry.is_symlink():
            _symlink(base, entry, rel, layout, scan)
        elif entry.is_dir(follow_symlinks=False):
            _walk(base, Path(entry.path), rel + "/", layout, scan)
        elif entry.is_file(follow_symlinks=False):
            _file(rel, entry.stat(follow_symlinks=False), layout, scan)


def _symlink(
    base: Path, entry: os.DirEntry[str], rel: str, layout: VaultLayout, scan: VaultScan
) -> None:
    try:
        target = Path(entry.path).resolve(strict=True)
    except (OSError, RuntimeError):
        scan.skipped.append(Skipped(rel, "broken symlink"))
        return
    if not inside(base, target):
        scan.skipped.append(Skipped(rel, f"symlink to {target}, outside the vault: not read"))
    elif target.is_dir():
        scan.skipped.append(
            Skipped(rel, "symlinked folder: not followed (its notes are read where they are)")
        )
    elif target.is_file():
        _file(rel, target.stat(), layout, scan)


def _file(rel: str, st: os.stat_result, layout: VaultLayout, scan: VaultScan) -> None:
    if not rel.endswith(".md"):
        scan.files[rel] = "attachment"
        return
    why = layout.exclusion(rel)
    if why is None:
        scan.notes[rel] = (st.st_mtime_ns, st.st_size)
    else:
        scan.files[rel] = "ignored"
        scan.excluded[why] += 1
