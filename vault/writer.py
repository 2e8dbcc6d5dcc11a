"""The one writer: every change noema makes to the vault goes through here.

- Paths are resolved and must stay inside the vault (no `..`, absolute paths, backslash
  tricks or symlinks that lead out).
- Writes are atomic: a temp file (in `.noema-tmp/`, see vault.tempfiles), fsync, then
  `os.replace` (a new note: `os.link`, which never replaces a file that appeared meanwhile).
- A file whose content hash changed since noema read it is never overwritten (ConflictError):
  checked before writing the temp file and again right before the rename (bytes, size, mtime,
  inode). What remains is the time the rename itself takes (docs/DEVELOPING.md, "Writes").
- Nothing is deleted: a removed note moves to the archive folder (and a folder a move left
  empty is removed, so the vault shows no empty folders).
- A new note's name is unique in the whole vault, not only in its folder: a bare `[[Name]]`
  link must stay unambiguous.
- Every path written is reported to `on_write` so the watcher can ignore noema's own writes.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from vault.crashpoints import crash_point
from vault.frontmatter_edit import set_fields
from vault.layout import VaultLayout
from vault.linkformat import Linker
from vault.note import Note, content_hash, parse_note
from vault.resolve import LinkResolver, name_key
from vault.scan import scan_vault
from vault.tempfiles import TEMP_DIR, locked_temp, remove_leftovers
from vault.titles import safe_filename


class VaultWriteError(Exception):
    """A write the writer refuses."""


class PathEscapeError(VaultWriteError):
    """The path would leave the vault."""


class ConflictError(VaultWriteError):
    """The file changed on disk since it was read (the user edited it meanwhile)."""


__all__ = ["ConflictError", "PathEscapeError", "VaultWriteError", "VaultWriter", "safe_filename"]


class VaultWriter:
    """Writes into one vault. `on_write(rel_path, new_hash)` is told of every write."""

    def __init__(
        self,
        root: Path,
        layout: VaultLayout | None = None,
        on_write: Callable[[str, str], None] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.layout = layout or VaultLayout()
        self.on_write = on_write

    # -- paths ---------------------------------------------------------------------------

    def resolve(self, rel: str | Path) -> Path:
        """The absolute path of a vault-relative path; PathEscapeError if it leaves the vault."""
        raw = str(rel)
        if not raw or "\x00" in raw:
            raise PathEscapeError(f"invalid path {raw!r}")
        if "\\" in raw or raw.startswith("/") or re.match(r"^[A-Za-z]:", raw) or os.path.isabs(raw):
            raise PathEscapeError(f"{raw!r} is not a vault-relative POSIX path")
        parts = PurePosixPath(raw).parts
        if any(part in ("..", ".") for part in parts) or raw.startswith("~"):
            raise PathEscapeError(f"{raw!r} leaves the vault")
        full = (self.root / raw).resolve()
        if full != self.root and self.root not in full.parents:
            raise PathEscapeError(f"{raw!r} resolves outside the vault (symlink?)")
        return full

    def rel(self, full: Path) -> str:
        return full.relative_to(self.root).as_posix()

    def unique_path(
        self, folder: str, title: str, *, taken: set[str] | None = None, vault_wide: bool = True
    ) -> str:
        """`folder/<safe title>.md`, with ` 2`, ` 3`... appended while the name is taken by a
        note anywhere in the vault (`vault_wide`), or in `folder` only. `taken` (from
        `taken_names()`, plus names the caller has planned) saves a walk of the vault."""
        base = safe_filename(title)
        folder = folder.strip("/")
        if taken is None:
            taken = self.taken_names() if vault_wide else set()
        taken = taken | self._names_in(folder)
        candidate, n = base, 1
        while name_key(candidate) in taken:
            n += 1
            candidate = f"{base} {n}"
        rel = f"{folder}/{candidate}.md" if folder else f"{candidate}.md"
        self.resolve(rel)
        return rel

    def taken_names(self) -> set[str]:
        """The names (as links compare them) of every note of the vault, read or not."""
        scan = scan_vault(self.root, self.layout)
        paths = [*scan.notes, *(p for p in scan.files if p.endswith(".md"))]
        return {name_key(p.rsplit("/", 1)[-1][:-3]) for p in paths}

    def _names_in(self, folder: str) -> set[str]:
        directory = self.resolve(folder) if folder else self.root
        try:
            return {name_key(n[:-3]) for n in os.listdir(directory) if n.endswith(".md")}
        except FileNotFoundError:
            return set()

    def linker(self, resolver: LinkResolver | None = None) -> Linker:
        """Writes links as this vault does (its layout's style); `resolver` (the vault's files)
        tells which names are unique, else the vault is walked once to know."""
        if resolver is None and self.layout.link_format == "shortest":
            scan = scan_vault(self.root, self.layout)
            resolver = LinkResolver([*scan.notes, *scan.files])
        return Linker(self.layout.markdown_links, self.layout.link_format, resolver)

    def remove_temp_leftovers(self) -> list[str]:
        """Temporary files a killed noema process left in the vault, removed (vault.tempfiles)."""
        return remove_leftovers(self.root)

    # -- reading -------------------------------------------------------------------------

    def read(self, rel: str) -> Note:
        """Read a note for editing; its hash is what a later write is checked against."""
        return parse_note(rel, self.resolve(rel).read_bytes())

    def current_hash(self, rel: str) -> str | None:
        full = self.resolve(rel)
        try:
            return content_hash(full.read_bytes())
        except FileNotFoundError:
            return None

    # -- writing -------------------------------------------------------------------------

    def create(self, rel: str, text: str) -> str:
        """Write a new note; VaultWriteError if the file already exists. Returns its hash."""
        if self.resolve(rel).exists():
            raise VaultWriteError(f"{rel} already exists")
        return self._write(rel, text.encode("utf-8"), expected=None, must_be_new=True)

    def write(self, rel: str, text: str, *, expected_hash: str | None) -> str:
        """Replace a note's text. `expected_hash` is the hash read earlier (None = new file)."""
        return self._write(rel, text.encode("utf-8"), expected=expected_hash, must_be_new=False)

    def _write(self, rel: str, data: bytes, *, expected: str | None, must_be_new: bool) -> str:
        full = self.resolve(rel)
        seen = _observe(full)
        current = seen.hash if seen is not None else None
        if current != expected and not (must_be_new and current is None):
            if current is None:
                raise ConflictError(f"{rel} was deleted or moved since it was read")
            if expected is None:
                raise ConflictError(f"{rel} already exists; not overwriting it")
            raise ConflictError(f"{rel} changed on disk since it was read; not overwriting it")
        full.parent.mkdir(parents=True, exist_ok=True)
        self.resolve(rel)  # a folder created above must not be a symlink out
        new_hash = content_hash(data)
        if self.on_write is not None:
            self.on_write(rel, new_hash)
        temp_dir = self.root / TEMP_DIR
        if temp_dir.is_symlink():  # never write a copy of a note outside the vault
            temp_dir = full.parent
        try:
            self._put(rel, full, data, seen, temp_dir)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            self._put(rel, full, data, seen, full.parent)  # the note is on another device
        _fsync_dir(full.parent)
        return new_hash

    def _put(self, rel: str, full: Path, data: bytes, seen: _Seen | None, temp_dir: Path) -> None:
        """Write a temporary file, then make it the note: the last check right before."""
        mode = seen.mode if seen is not None else None
        with locked_temp(temp_dir, data, mode) as tmp:
            crash_point("write.temp_written")
            if seen is None:
                _link_new(rel, tmp, full)
            else:
                self._recheck(rel, full, seen)
                os.replace(tmp, full)
            crash_point("write.renamed")

    @staticmethod
    def _recheck(rel: str, full: Path, seen: _Seen) -> None:
        """The file must still be exactly what was checked (bytes, size, mtime, inode); a
        save that landed meanwhile is kept and reported, never overwritten."""
        now = _observe(full)
        if now is None:
            raise ConflictError(f"{rel} was deleted or moved while noema was writing it")
        if now != seen:
            raise ConflictError(f"{rel} changed on disk while noema was writing it; kept yours")

    def set_frontmatter(self, rel: str, fields: dict[str, object], *, expected_hash: str) -> str:
        """Set frontmatter fields in place; every other byte of the note stays as it was."""
        note = self.read(rel)
        if note.hash != expected_hash:
            raise ConflictError(f"{rel} changed on disk since it was read; not overwriting it")
        return self.write(rel, set_fields(note.text, fields), expected_hash=expected_hash)

    def insert_at(self, rel: str, inserts: dict[int, str], *, expected_hash: str) -> str:
        """Insert strings at text offsets (e.g. ` ^id` at a quote's line end); nothing else moves."""
        note = self.read(rel)
        if note.hash != expected_hash:
            raise ConflictError(f"{rel} changed on disk since it was read; not overwriting it")
        text = note.text
        for offset in sorted(inserts, reverse=True):
            if not 0 <= offset <= len(text):
                raise VaultWriteError(f"offset {offset} is outside {rel}")
            text = text[:offset] + inserts[offset] + text[offset:]
        return self.write(rel, text, expected_hash=expected_hash)

    def move(self, rel: str, new_rel: str, *, expected_hash: str | None = None) -> str:
        """Rename a note (e.g. after a rename was approved); refuses to overwrite a file."""
        full, target = self.resolve(rel), self.resolve(new_rel)
        if expected_hash is not None and self.current_hash(rel) != expected_hash:
            raise ConflictError(f"{rel} changed on disk since it was read; not moving it")
        if target.exists() and target != full:
            raise VaultWriteError(f"{new_rel} already exists")
        target.parent.mkdir(parents=True, exist_ok=True)
        self.resolve(new_rel)
        if self.on_write is not None:
            self.on_write(rel, "")
            self.on_write(new_rel, content_hash(full.read_bytes()))
        os.replace(full, target)
        crash_point("move.renamed")
        _fsync_dir(full.parent)
        _fsync_dir(target.parent)
        self._prune(full.parent)
        return new_rel

    def archive(self, rel: str, *, expected_hash: str | None = None) -> str:
        """Move a note into the archive folder (never delete). Returns its new relative path."""
        full = self.resolve(rel)
        if expected_hash is not None and self.current_hash(rel) != expected_hash:
            raise ConflictError(f"{rel} changed on disk since it was read; not archiving it")
        archive = self.layout.archive.strip("/")
        if rel == archive or rel.startswith(archive + "/"):
            raise VaultWriteError(f"{rel} is already archived")
        parent = str(PurePosixPath(rel).parent)
        folder = archive if parent == "." else f"{archive}/{parent}"
        target = self.unique_path(folder, PurePosixPath(rel).stem, vault_wide=False)
        target_full = self.resolve(target)
        target_full.parent.mkdir(parents=True, exist_ok=True)
        if self.on_write is not None:
            data = full.read_bytes()
            self.on_write(rel, "")
            self.on_write(target, content_hash(data))
        os.replace(full, target_full)
        crash_point("move.renamed")
        _fsync_dir(full.parent)
        _fsync_dir(target_full.parent)
        self._prune(full.parent)
        return target

    def _prune(self, folder: Path) -> None:
        """Remove `folder` and its parents while a move has left them empty (never the vault
        root, never a folder of the layout)."""
        keep = {self.root}
        for name in (
            self.layout.sources,
            self.layout.concepts,
            self.layout.lessons,
            self.layout.curriculum,
            self.layout.tutoring,
            self.layout.archive,
        ):
            if name.strip("/"):
                keep.add(self.root / name.strip("/"))
        while folder not in keep and self.root in folder.parents:
            try:
                folder.rmdir()  # only succeeds on an empty folder
            except OSError:
                return
            _fsync_dir(folder.parent)
            folder = folder.parent


@dataclass(frozen=True)
class _Seen:
    """A file as one check saw it."""

    hash: str
    size: int
    mtime_ns: int
    inode: int
    mode: int = field(compare=False)


def _observe(full: Path) -> _Seen | None:
    """The file's hash and stat from one open (None when there is no file)."""
    try:
        with open(full, "rb") as handle:
            stat = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        return None
    mode = stat.st_mode & 0o7777
    return _Seen(content_hash(data), stat.st_size, stat.st_mtime_ns, stat.st_ino, mode)


_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK}


def _link_new(rel: str, tmp: Path, full: Path) -> None:
    """Give the temporary file the note's name, failing if a file took that name meanwhile."""
    try:
        os.link(tmp, full)
        return
    except FileExistsError as exc:
        raise ConflictError(
            f"{rel} appeared while noema was writing it; not overwriting it"
        ) from exc
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
    if full.exists():  # a file system without hard links (FAT, some network shares)
        raise ConflictError(f"{rel} appeared while noema was writing it; not overwriting it")
    os.replace(tmp, full)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
