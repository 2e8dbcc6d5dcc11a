"""The note model: one Markdown file of the vault, read without changing a byte of it.

Built on python-frontmatter's YAML handler; offsets refer to the text exactly as read so
writers can splice minimal edits into it.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from vault.containment import contained
from vault.links import Link, parse_links
from vault.markdown import Section, block_ids, code_mask, frontmatter_span, load_yaml, sections


class NoteUnreadable(Exception):
    """The file is not a note noema can read (binary, not UTF-8, too large); it is skipped."""


def content_hash(data: bytes) -> str:
    """The hash every conflict check and change detection uses."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass
class Note:
    """A note as read: the raw text and what was parsed from it."""

    path: str
    """Vault-relative POSIX path."""
    text: str
    """The full text exactly as read (line endings kept)."""
    hash: str
    """content_hash of the file's bytes."""
    frontmatter: dict[str, Any] = field(default_factory=dict)
    """Parsed frontmatter, key order kept, unknown keys kept."""
    body_start: int = 0
    """Offset where the body begins (after the frontmatter block)."""
    warnings: list[str] = field(default_factory=list)
    """What was wrong with the note (malformed YAML, empty file, ...)."""

    @property
    def title(self) -> str:
        """The file name without `.md` (Obsidian's note title), in Unicode NFC whatever the
        file system wrote (macOS writes NFD): the path keeps the real name."""
        name = self.path.rsplit("/", 1)[-1]
        return unicodedata.normalize("NFC", name[:-3] if name.endswith(".md") else name)

    @property
    def body(self) -> str:
        return self.text[self.body_start :]

    @property
    def aliases(self) -> list[str]:
        return _string_list(self.frontmatter.get("aliases", self.frontmatter.get("alias")))

    @property
    def tags(self) -> list[str]:
        return [t.lstrip("#") for t in _string_list(self.frontmatter.get("tags"))]

    @cached_property
    def masked_body(self) -> str:
        return code_mask(self.body)

    @cached_property
    def sections(self) -> list[Section]:
        """Sections by heading; offsets are into `text`."""
        return [
            Section(
                s.level,
                s.heading,
                s.start + self.body_start,
                s.content_start + self.body_start,
                s.end + self.body_start,
            )
            for s in sections(self.body, self.masked_body)
        ]

    def section(self, *names: str) -> Section | None:
        """The first section whose heading is one of `names` (case-insensitive)."""
        wanted = {n.lower() for n in names}
        return next((s for s in self.sections if s.heading.lower() in wanted), None)

    def section_text(self, *names: str) -> str:
        found = self.section(*names)
        return "" if found is None else self.text[found.content_start : found.end]

    @cached_property
    def block_ids(self) -> list[str]:
        return block_ids(self.body, self.masked_body)

    @cached_property
    def links(self) -> list[Link]:
        """Outgoing links, frontmatter included, in order."""
        return parse_links(self.text, self.body_start)


def _string_list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [str(item) for item in value if item is not None and str(item).strip()]
    return [str(value)]


def parse_note(path: str, data: bytes) -> Note:
    """A note from a file's bytes. Raises NoteUnreadable for binary or non-UTF-8 content."""
    if b"\x00" in data:
        raise NoteUnreadable(f"{path}: binary content, skipped")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteUnreadable(f"{path}: not UTF-8 ({exc.reason}), skipped") from exc
    note = Note(path=path, text=text, hash=content_hash(data))
    if not text.strip():
        note.warnings.append(f"{path}: empty note")
        return note
    span = frontmatter_span(text)
    if span is None:
        return note
    yaml_start, yaml_end, body_start = span
    try:
        loaded = load_yaml(text[yaml_start:yaml_end])
    except yaml.YAMLError as exc:
        note.warnings.append(f"{path}: malformed frontmatter, read without it ({_first_line(exc)})")
        return note
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        note.warnings.append(f"{path}: frontmatter is not a mapping, read without it")
        return note
    note.frontmatter = {str(k): v for k, v in loaded.items()}
    note.body_start = body_start
    return note


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def read_note(root: Path, rel: str, max_bytes: int = 2_000_000) -> Note:
    """Read a vault note by its relative path; NoteUnreadable when it must be skipped (never
    a file outside the vault: a symlink that leads out is refused)."""
    full = contained(Path(root), rel)
    if full is None:
        raise NoteUnreadable(f"{rel}: leads outside the vault (symlink?), not read")
    try:
        size = full.stat().st_size
        if size > max_bytes:
            raise NoteUnreadable(f"{rel}: {size} bytes is over the {max_bytes}-byte limit, skipped")
        data = full.read_bytes()
    except OSError as exc:
        raise NoteUnreadable(f"{rel}: cannot read ({exc.strerror or exc})") from exc
    return parse_note(rel, data)
