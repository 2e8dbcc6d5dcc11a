"""Slots of a pool's servers, counted across event loops and threads.

A pool's requests may come from several event loops of one process (the app's, and the
`asyncio.run` of an index sync in a worker thread), so waiting cannot use asyncio's own
primitives, which belong to one loop. `Slots` keeps its counts under a thread lock and wakes
each waiter in its own loop (`call_soon_threadsafe`).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Slots:
    """How many requests each server works on, against how many it may (`capacity`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.capacity: dict[Hashable, int] = {}
        self.in_use: dict[Hashable, int] = {}
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def add(self, key: Hashable, capacity: int) -> None:
        """A server with `capacity` slots (the largest capacity given for it wins)."""
        with self.lock:
            self.capacity[key] = max(capacity, self.capacity.get(key, 0))
            self.in_use.setdefault(key, 0)

    def free(self, key: Hashable) -> int:
        """Free slots of a server now (call under `lock`)."""
        return self.capacity.get(key, 0) - self.in_use.get(key, 0)

    async def wait_for(self, take: Callable[[], T | None]) -> T:
        """Wait until `take()` (called under the lock, where it may take slots) returns a
        value other than None, and return it."""
        loop = asyncio.get_running_loop()
        while True:
            with self.lock:
                got = take()
                if got is not None:
                    return got
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append((loop, future))
            try:
                await future
            finally:
                with self.lock:
                    if (loop, future) in self._waiters:
                        self._waiters.remove((loop, future))

    def take(self, key: Hashable) -> bool | None:
        """Take one slot of a server if it has one free (call under `lock`); None if not."""
        if self.free(key) <= 0:
            return None
        self.in_use[key] = self.in_use.get(key, 0) + 1
        return True

    def give_back(self, keys: Iterable[Hashable]) -> None:
        """Free one slot of each server named, and wake every waiter to look again."""
        with self.lock:
            for key in keys:
                self.in_use[key] = max(0, self.in_use.get(key, 0) - 1)
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_wake, future)


@dataclass
class Holder:
    """The server slot one call holds (one at a time: a retry on another deployment gives
    the previous one back first), and the run it belongs to (for session affinity)."""

    session: str = ""
    held: list[Hashable] = field(default_factory=list)
    """The servers whose slot this call holds."""
    last: str = ""
    """The deployment the call went to last (the one that answered, or failed last)."""


HOLDER: contextvars.ContextVar[Holder | None] = contextvars.ContextVar("pool_holder", default=None)
"""The call under way in this task (set by the pool backend around each request)."""
