"""Advisory locks the kernel releases when their process dies (even by kill -9).

`try_lock(fd)` takes an exclusive lock on an open file without waiting: `flock` on POSIX,
one locked byte on Windows. A lock belongs to the open file, so a second open of the same
path (in this process or another) cannot take it while the first holds it. noema uses it
for its temporary files in the vault (a leftover nobody holds is safe to remove) and for the
leases on runs and merge applies (core.leases).
"""

from __future__ import annotations

import os
from pathlib import Path

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(fd: int) -> bool:
        """Lock the open file `fd` exclusively; False when another open file holds it."""
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        except OSError:
            return False
        return True

else:
    import fcntl

    def try_lock(fd: int) -> bool:
        """Lock the open file `fd` exclusively; False when another open file holds it."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # EWOULDBLOCK / EAGAIN: another open file holds it
            return False
        return True


def same_file(fd: int, path: Path) -> bool:
    """Whether `path` still names the file open as `fd` (not removed or replaced since)."""
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False
