"""Which folders of the vault hold what, which paths are never read, how links are written.

`vault` may not import `core`, so core maps its settings (and the vault's own Obsidian
settings, `vault.obsidian`) onto this small dataclass.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

from vault.obsidian import IgnoreMatcher

ALWAYS_EXCLUDED = (".obsidian", ".trash", ".git")
"""Top-level folders Obsidian (or git) owns; never notes."""

NoteKind = str
"""One of: source, concept, lesson, curriculum, tutoring, archive, note."""


@dataclass(frozen=True)
class VaultLayout:
    """Folder names (relative to the vault root, POSIX separators) and exclusion globs."""

    sources: str = "03 - Sources"
    concepts: str = "08 - Ideas"
    lessons: str = "09 - Lessons"
    curriculum: str = "10 - Curriculum"
    tutoring: str = "11 - Tutoring"
    archive: str = "99 - Archive"
    templates: str = "Templates"
    exclude: tuple[str, ...] = field(default=(".obsidian/**", ".trash/**"))
    max_note_bytes: int = 2_000_000
    attachments: str = ""
    """The vault's attachments folder ("" when attachments go to the root or beside notes):
    its files are attachments, never notes."""
    ignore: tuple[str, ...] = ()
    """Obsidian's "Excluded files" (path prefixes or `/regex/`): never read as notes."""
    markdown_links: bool = False
    """Write `[text](path.md)` links instead of `[[wikilinks]]`."""
    link_format: str = "shortest"
    """How written links name their target: "shortest", "relative" or "absolute"."""

    @cached_property
    def _ignored(self) -> IgnoreMatcher:
        return IgnoreMatcher(self.ignore)

    def kind_of(self, rel: str) -> NoteKind:
        """The kind of note a vault-relative POSIX path is, from the folder it sits in."""
        for kind, folder in (
            ("archive", self.archive),
            ("source", self.sources),
            ("concept", self.concepts),
            ("lesson", self.lessons),
            ("curriculum", self.curriculum),
            ("tutoring", self.tutoring),
        ):
            if folder and (rel == folder or rel.startswith(folder.rstrip("/") + "/")):
                return kind
        return "note"

    def is_hidden(self, rel: str) -> bool:
        """Whether a path is outside what Obsidian shows at all (dot files and folders)."""
        parts = PurePosixPath(rel).parts
        return not parts or parts[0] in ALWAYS_EXCLUDED or any(p.startswith(".") for p in parts)

    def exclusion(self, rel: str) -> str | None:
        """Why a vault-relative note path is never read as a note, or None when it is read."""
        if self.is_hidden(rel):
            return "hidden"
        for folder, why in (
            (self.templates, "templates folder"),
            (self.attachments, "attachments folder"),
        ):
            folder = folder.strip("/")
            if folder and (rel == folder or rel.startswith(folder + "/")):
                return why
        if self._ignored.matches(rel):
            return "excluded in Obsidian"
        if any(_glob_match(rel, pattern) for pattern in self.exclude):
            return "excluded in noema's settings"
        return None

    def is_excluded(self, rel: str) -> bool:
        """Whether a vault-relative path is never read (Obsidian's folders, templates,
        attachments, Obsidian's excluded files, noema's exclusion globs)."""
        return self.exclusion(rel) is not None

    def prunes(self, rel_dir: str) -> bool:
        """Whether nothing under this folder is part of the vault (hidden folders)."""
        return self.is_hidden(rel_dir)

    def iter_notes(self, root: Path) -> Iterator[str]:
        """Vault-relative POSIX paths of every markdown note that is read (none outside the
        vault: see `vault.scan`)."""
        from vault.scan import scan_vault

        yield from scan_vault(root, self).notes


def _glob_match(rel: str, pattern: str) -> bool:
    if pattern.endswith("/**"):
        prefix = pattern[:-3]
        if "*" not in prefix and "?" not in prefix and "[" not in prefix:
            return rel == prefix or rel.startswith(prefix + "/")
    return fnmatch.fnmatchcase(rel, pattern)
