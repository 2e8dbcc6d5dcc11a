"""The writer's temporary files: where they go, how they are held, how leftovers go away.

Every write first puts the new bytes in a temporary file and then renames it over the note.
The temporary files go into one dot-folder at the vault's root, `.noema-tmp/`: Obsidian lists
and indexes no file or folder whose name starts with a dot, and noema's own index skips them
too. The folder is removed again when it is empty, so a vault noema wrote without trouble
holds no trace of it. (If the folder sits on another file system than the note, e.g. a mount
inside the vault, the temporary file goes beside the note as `.noema-<random>.tmp` instead.)

A temporary file is locked (vault.filelocks) from its creation until it is renamed or
removed. A process killed in between (kill -9, power cut) leaves it behind, unlocked:
`remove_leftovers` (run by `noema repair` and at start-up) removes exactly those files, only
noema's own name pattern and only when no process holds the lock. (On Windows an open file
cannot be renamed, so no lock is held across the rename there: a leftover is removed once it
is ten minutes old.)
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

from vault.filelocks import same_file, try_lock

TEMP_DIR = ".noema-tmp"
"""The dot-folder at the vault root that holds temporary files while they are written."""
_NAME = re.compile(r"^\.noema-[A-Za-z0-9_]{6,32}\.tmp$")
"""noema's temporary file names (this version's and the `tempfile.mkstemp` ones before)."""
_SKIP_DIRS = {".git", ".obsidian", ".trash"}
_WINDOWS = os.name == "nt"
WINDOWS_MIN_AGE_S = 600
"""On Windows (no lock held across the rename) a leftover must be this old to be removed."""


@contextlib.contextmanager
def locked_temp(directory: Path, data: bytes, mode: int | None) -> Iterator[Path]:
    """A new file in `directory` holding `data` (fsynced, locked, `mode` if given).

    Yields its path; whatever is still there afterwards (it was not renamed away) is removed.
    """
    fd: int | None
    fd, path = _create(directory)
    try:
        with open(fd, "wb", closefd=False) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(path, mode)
        if _WINDOWS:  # an open file cannot be renamed there: no lock, leftovers go by age
            os.close(fd)
            fd = None
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        if fd is not None:
            os.close(fd)
        if directory.name == TEMP_DIR:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only when empty: another writer's file keeps it


def _create(directory: Path) -> tuple[int, Path]:
    """Create and lock a fresh temporary file (the lock is taken before anyone can see it
    unlocked for long: a cleanup that removed it in between is detected and retried)."""
    for _attempt in range(10):
        directory.mkdir(exist_ok=True)
        path = directory / f".noema-{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileNotFoundError:  # the folder was removed by another writer meanwhile
            continue
        if try_lock(fd) and same_file(fd, path):
            return fd, path
        os.close(fd)
    raise OSError(f"could not create a temporary file in {directory}")


def remove_leftovers(root: Path) -> list[str]:
    """Remove temporary files noema left in the vault and no process holds.

    Looks in `.noema-tmp/` and, for files older versions (or the other-file-system fallback)
    wrote beside notes, every folder of the vault except Obsidian's and git's. Returns the
    vault-relative paths removed.
    """
    removed = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        for name in filenames:
            if _NAME.match(name) and _remove_if_unheld(Path(dirpath) / name):
                removed.append((Path(dirpath) / name).relative_to(root).as_posix())
    with contextlib.suppress(OSError):
        (root / TEMP_DIR).rmdir()
    return sorted(removed)


def _remove_if_unheld(path: Path) -> bool:
    try:
        if not path.is_file() or path.is_symlink():
            return False
        if _WINDOWS:
            if time.time() - path.stat().st_mtime < WINDOWS_MIN_AGE_S:
                return False
            path.unlink()
            return True
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        if not try_lock(fd):
            return False  # a live noema process is writing it
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
