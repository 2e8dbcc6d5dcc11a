"""What one sync of the vault into the index did (vault.index)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vault.index_rows import NoteRows
from vault.scan import Skipped


@dataclass
class SyncResult:
    """What a sync did."""

    added: int = 0
    changed: int = 0
    deleted: int = 0
    renamed: int = 0
    unchanged: int = 0
    embedded: int = 0
    warnings: list[str] = field(default_factory=list)
    embedding_error: str | None = None
    duration_s: float = 0.0
    changed_paths: list[str] = field(default_factory=list)
    """Paths added or changed (new content), for the watcher's decisions."""
    skipped: list[Skipped] = field(default_factory=list)
    """Entries of the vault folder not read, with why (a symlink that leads out, ...)."""
    excluded: dict[str, int] = field(default_factory=dict)
    """Notes kept out by each exclusion rule (templates, Obsidian's excluded files, ...)."""
    attachments: int = 0
    """Other files of the vault (links to them resolve)."""

    def summary(self) -> str:
        text = (
            f"{self.added} added, {self.changed} changed, {self.deleted} deleted, "
            f"{self.renamed} renamed, {self.unchanged} unchanged, {self.embedded} re-embedded, "
            f"{len(self.warnings)} warnings, {len(self.skipped)} skipped in {self.duration_s:.2f}s"
        )
        return text + (f" (embeddings: {self.embedding_error})" if self.embedding_error else "")


def count_changes(
    fresh: list[NoteRows],
    known: dict[str, tuple[str, int, int]],
    deleted: list[str],
    result: SyncResult,
) -> None:
    """Added, changed, renamed (a new path with the content of a gone one) and deleted."""
    gone_hashes = {known[p][0] for p in deleted}
    for rows in fresh:
        if rows.note[0] in known:
            result.changed += 1
        elif rows.note[1] in gone_hashes:
            result.renamed += 1
        else:
            result.added += 1
        result.changed_paths.append(rows.note[0])
    result.deleted = max(0, len(deleted) - result.renamed)
