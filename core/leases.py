"""Leases: which live process is working on a run or a merge apply right now.

A lease is an exclusive lock (vault.filelocks) on a small file in the store's folder,
`locks/<name>.lock`, held for as long as a process drives a run or applies a review. The
kernel drops it when the process ends, however it ends (kill -9, power cut), so "is anyone
still working on this?" has an exact answer without heartbeats or guessing from pids that
the system may have reused: if the lease can be taken, nobody is. The file names the holder
(pid and host) for messages. The lock is per open file: a second attempt in the same
process fails too, as it should.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from vault.filelocks import same_file, try_lock

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def run_lease(run_id: str) -> str:
    """The lease a process holds while it drives a run (runtime) or finishes its commit."""
    return f"run-{run_id}"


def merge_lease(review_id: str) -> str:
    """The lease a process holds while it applies, resumes or undoes a review's merges."""
    return f"merge-{review_id}"


class LeaseHeld(Exception):
    """Another live process (or another task of this one) holds the lease."""

    def __init__(self, name: str, holder: str) -> None:
        super().__init__(f"{name} is held by {holder or 'another noema process'}")
        self.name = name
        self.holder = holder


class Lease:
    """A held lease; `release()` (or leaving the `with` block) gives it up."""

    def __init__(self, path: Path | None, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        if self.path is not None:
            with contextlib.suppress(OSError):  # removed while held: no lock files pile up
                os.unlink(self.path)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def name_holder(fd: int) -> None:
    """Write this process as the holder into the lease's file (whatever it held before goes).

    Written first and cut to its length after, never cut to zero: ext4 (auto_da_alloc) flushes
    a file truncated to zero to disk when it is closed, and the release would wait milliseconds
    for the disk on the event loop, on every turn of a chat."""
    holder = f"pid {os.getpid()} on {socket.gethostname()}\n".encode()
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, holder)
    os.ftruncate(fd, len(holder))


class Leases:
    """The leases of one store (None: an in-memory store, where every lease is granted)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    @classmethod
    def of_store(cls, store: object) -> Leases:
        """The leases beside a store's file (`<data dir>/locks/`); for a shared store,
        advisory locks in its database (core.shared_leases: they hold across machines)."""
        shared = getattr(store, "shared", None)
        if shared is not None:
            from core.shared_leases import AdvisoryLeases

            return AdvisoryLeases(shared)
        path = Path(str(getattr(store, "path", ":memory:")))
        return cls(None if str(path) == ":memory:" else path.parent / "locks")

    def _path(self, name: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{_SAFE.sub('_', name)}.lock"

    def try_take(self, name: str) -> Lease | None:
        """The lease if nobody holds it, else None (never waits)."""
        if self.directory is None:
            return Lease(None, None)
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(name)
        for _attempt in range(10):
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            if not try_lock(fd):
                os.close(fd)
                return None
            if same_file(fd, path):  # not a file its last holder removed meanwhile
                name_holder(fd)
                return Lease(path, fd)
            os.close(fd)
        return None

    def is_free(self, name: str) -> bool:
        """Whether no process holds the lease right now (it is taken and given back at once)."""
        lease = self.try_take(name)
        if lease is None:
            return False
        lease.release()
        return True

    def take(self, name: str) -> Lease:
        """The lease, or LeaseHeld naming its holder."""
        lease = self.try_take(name)
        if lease is None:
            raise LeaseHeld(name, self.holder(name))
        return lease

    def holder(self, name: str) -> str:
        """Who holds the lease ("pid 123 on host"), or "" when unknown."""
        if self.directory is None:
            return ""
        try:
            return self._path(name).read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    def wait(
        self,
        name: str,
        timeout: float | None = None,
        on_wait: Callable[[str], None] | None = None,
        poll: float = 0.1,
    ) -> Lease | None:
        """Take the lease, waiting while another process holds it (None after `timeout`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        told = False
        while (lease := self.try_take(name)) is None:
            if deadline is not None and time.monotonic() >= deadline:
                return None
            if on_wait is not None and not told:
                on_wait(self.holder(name))
                told = True
            time.sleep(poll)
        return lease

    async def wait_async(
        self, name: str, on_wait: Callable[[str], None] | None = None, poll: float = 0.2
    ) -> Lease:
        """`wait` for event loops (no thread left blocked when the caller is cancelled)."""
        told = False
        while (lease := self.try_take(name)) is None:
            if on_wait is not None and not told:
                on_wait(self.holder(name))
                told = True
            await asyncio.sleep(poll)
        return lease

    @contextlib.contextmanager
    def held(self, name: str) -> Iterator[Lease]:
        """`with leases.held(name):` the lease for the block, or LeaseHeld at once."""
        with self.take(name) as lease:
            yield lease
