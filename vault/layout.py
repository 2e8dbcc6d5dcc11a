"""Which folders of the vault hold what, and which paths are never read.

`vault` may not import `core`, so core maps its settings onto this small dataclass.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

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

    def is_excluded(self, rel: str) -> bool:
        """Whether a vault-relative path is never read (Obsidian's folders, templates, globs)."""
        parts = PurePosixPath(rel).parts
        if not parts or parts[0] in ALWAYS_EXCLUDED:
            return True
        if any(part.startswith(".") for part in parts):
            return True
        templates = self.templates.rstrip("/")
        if templates and (rel == templates or rel.startswith(templates + "/")):
            return True
        return any(_glob_match(rel, pattern) for pattern in self.exclude)

    def iter_notes(self, root: Path) -> Iterator[str]:
        """Vault-relative POSIX paths of every markdown note that is not excluded."""
        root_str = str(root)
        for dirpath, dirnames, filenames in os.walk(root_str):
            rel_dir = os.path.relpath(dirpath, root_str).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            dirnames[:] = sorted(
                d
                for d in dirnames
                if not self.is_excluded(rel_dir + d) or _partial(self, rel_dir + d)
            )
            for name in sorted(filenames):
                if name.endswith(".md"):
                    rel = rel_dir + name
                    if not self.is_excluded(rel):
                        yield rel


def _partial(layout: VaultLayout, rel_dir: str) -> bool:
    """A folder excluded only by a file glob may still hold notes to read; descend into it."""
    parts = PurePosixPath(rel_dir).parts
    if parts[0] in ALWAYS_EXCLUDED or any(p.startswith(".") for p in parts):
        return False
    templates = layout.templates.rstrip("/")
    if templates and (rel_dir == templates or rel_dir.startswith(templates + "/")):
        return False
    return not any(_glob_match(rel_dir + "/x", p) for p in layout.exclude if p.endswith("/**"))


def _glob_match(rel: str, pattern: str) -> bool:
    if pattern.endswith("/**"):
        prefix = pattern[:-3]
        if "*" not in prefix and "?" not in prefix and "[" not in prefix:
            return rel == prefix or rel.startswith(prefix + "/")
    return fnmatch.fnmatchcase(rel, pattern)
