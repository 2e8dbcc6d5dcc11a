"""Leases across machines: PostgreSQL session advisory locks on the shared store.

With a shared store two machines may drive the same run, so a lock file in one machine's
data directory says nothing. Here a lease is a session-level advisory lock held on a
connection of this process (one per store, for every lease). PostgreSQL drops it when that
session ends: the process exits or dies (kill -9 closes its socket), or its machine drops off
the network (TCP keepalives: about a minute). "Is a live process still working on it?" keeps
its exact answer: it is iff the lock cannot be taken.

Advisory locks are re-entrant within a session, a lease is not: the process keeps the set of
keys it holds and refuses a second take, as a second flock on the same file would be refused.
The holder is named by its `application_name` ("noema pid N on HOST", core.store.open).
"""

from __future__ import annotations

import hashlib
import threading
from typing import TYPE_CHECKING

from core.leases import Lease, Leases

if TYPE_CHECKING:
    import psycopg

    from core.store.postgres import PostgresStore

_HELD: dict[tuple[str, int], bool] = {}
_HELD_LOCK = threading.Lock()


def lease_key(name: str) -> int:
    """A lease name as a signed 64-bit advisory lock key."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8, person=b"noema-lease").digest()
    return int.from_bytes(digest, "big", signed=True)


class AdvisoryLease(Lease):
    """A held advisory lock; `release()` unlocks it."""

    def __init__(self, owner: AdvisoryLeases, key: int) -> None:
        super().__init__(None, None)
        self._owner: AdvisoryLeases | None = owner
        self._key = key

    def release(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            owner._unlock(self._key)


class AdvisoryLeases(Leases):
    """The leases of a shared store (same interface as file leases)."""

    def __init__(self, shared: PostgresStore) -> None:
        super().__init__(None)
        self.shared = shared

    def _connection(self) -> psycopg.Connection:
        conn = self.shared.lease_connection
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        from core.store.postgres import connect

        conn = connect(self.shared.conninfo)
        self.shared.lease_connection = conn
        return conn

    def _scope(self) -> str:
        return str(self.shared.conninfo)

    def try_take(self, name: str) -> Lease | None:
        key = lease_key(name)
        with _HELD_LOCK, self.shared.lease_lock:
            if (self._scope(), key) in _HELD:
                return None
            row = self._connection().execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if row is None or not row[0]:  # (the SELECT always gives one row)
                return None
            _HELD[(self._scope(), key)] = True
            return AdvisoryLease(self, key)

    def _unlock(self, key: int) -> None:
        with _HELD_LOCK, self.shared.lease_lock:
            _HELD.pop((self._scope(), key), None)
            conn = self.shared.lease_connection
            if conn is None or conn.closed or conn.broken:
                return  # the session is gone: so is its lock
            conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def holder(self, name: str) -> str:
        unsigned = lease_key(name) & 0xFFFFFFFFFFFFFFFF
        with self.shared.lease_lock:
            row = (
                self._connection()
                .execute(
                    "SELECT a.application_name FROM pg_locks l"
                    " JOIN pg_stat_activity a ON a.pid = l.pid"
                    " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
                    " AND l.classid = %s AND l.objid = %s"
                    " AND l.database = (SELECT oid FROM pg_database"
                    "                   WHERE datname = current_database())",
                    (unsigned >> 32, unsigned & 0xFFFFFFFF),
                )
                .fetchone()
            )
        if row is None:
            return ""
        name = str(row[0] or "")
        return name.removeprefix("noema ") if name.startswith("noema pid ") else name
