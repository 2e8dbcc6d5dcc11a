"""The runs table: one row per workflow run (thread_id = run id)."""

from __future__ import annotations

import builtins
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from core.leases import Leases, run_lease
from core.run_status import ACTIVE_STATUSES, RunStatus
from core.store.db import Store

INTERRUPTED = "interrupted: noema stopped during this run; it goes on from its last finished step"
"""The note on a queued run that was running when its process quit (or was stopped)."""


def now_iso() -> str:
    """The current UTC time as ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class RunRecord:
    """One run as the store records it."""

    id: str
    flow: str
    target: str
    status: RunStatus
    input: dict[str, object]
    """The run's input as it was given (JSON data; the flow's `make_input` validates it)."""
    error: str | None
    created_at: str
    updated_at: str

    @property
    def interrupted(self) -> bool:
        """Queued again because its process stopped mid-run: it resumes from its checkpoint."""
        return self.status == "queued" and (self.error or "").startswith("interrupted")


def _record(row: Any) -> RunRecord:
    return RunRecord(
        id=row["id"],
        flow=row["flow"],
        target=row["target"],
        status=row["status"],
        input=json.loads(row["input_json"]),
        error=row["error"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


class RunsRepo:
    """Create, update and list runs."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(
        self,
        flow: str,
        input: Mapping[str, object],
        *,
        target: str = "",
        status: RunStatus = "queued",
    ) -> RunRecord:
        """A new run row; its id is the LangGraph thread id."""
        run_id = uuid.uuid4().hex
        stamp = now_iso()
        self.store.execute(
            "INSERT INTO runs (id, flow, target, status, input_json, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, flow, target, status, json.dumps(input, default=str), stamp, stamp),
        )
        return self.get(run_id)

    def enqueue_once(
        self, flow: str, input: Mapping[str, object], *, target: str
    ) -> RunRecord | None:
        """Queue a run unless an active run of the same flow and target exists; None then."""
        with self.store.transaction():
            placeholders = ",".join("?" for _ in ACTIVE_STATUSES)
            existing = self.store.query_one(
                f"SELECT id FROM runs WHERE flow=? AND target=? AND status IN ({placeholders})",
                (flow, target, *ACTIVE_STATUSES),
            )
            if existing is not None:
                return None
            return self.create(flow, input, target=target)

    def get(self, run_id: str) -> RunRecord:
        """The run with this id (KeyError when there is none)."""
        row = self.store.query_one("SELECT * FROM runs WHERE id=?", (run_id,))
        if row is None:
            raise KeyError(f"no run {run_id}")
        return _record(row)

    def find(self, prefix: str) -> RunRecord:
        """The run whose id starts with `prefix` (as the CLI accepts short ids)."""
        rows = self.store.query("SELECT * FROM runs WHERE id LIKE ? LIMIT 2", (prefix + "%",))
        if len(rows) != 1:
            raise KeyError(f"no run {prefix}" if not rows else f"run id {prefix} is ambiguous")
        return _record(rows[0])

    def set_status(self, run_id: str, status: RunStatus, *, error: str | None = None) -> None:
        """Move a run to a status, keeping (or clearing) its error."""
        self.store.execute(
            "UPDATE runs SET status=?, error=?, updated_at=? WHERE id=?",
            (status, error, now_iso(), run_id),
        )

    def mark_interrupted(self, run_id: str) -> None:
        """A running run whose process is stopping: queued again, with the `INTERRUPTED` note
        (it resumes from its last checkpoint when started). Other statuses are left alone."""
        self.store.execute(
            "UPDATE runs SET status='queued', error=?, updated_at=? WHERE id=? AND status='running'",
            (INTERRUPTED, now_iso(), run_id),
        )

    def list(self, status: RunStatus | None = None, flow: str | None = None) -> list[RunRecord]:
        """Runs, newest first, optionally filtered."""
        clauses: builtins.list[str] = []
        params: builtins.list[str] = []
        if status is not None:
            clauses.append("status=?")
            params.append(status)
        if flow is not None:
            clauses.append("flow=?")
            params.append(flow)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.store.query(f"SELECT * FROM runs {where} ORDER BY updated_at DESC", params)
        return [_record(row) for row in rows]

    def recover_interrupted(self, leases: Leases) -> builtins.list[str]:
        """Runs left 'running' by a process that died go back to 'queued'; their ids.

        A run whose lease (core.leases) another live process holds is being driven and is
        left alone; the lease is held while the status changes, so no process can start
        driving the run in between.
        """
        recovered = []
        for row in self.store.query("SELECT id FROM runs WHERE status='running'"):
            lease = leases.try_take(run_lease(row[0]))
            if lease is None:
                continue
            with lease:
                cursor = self.store.execute(  # shown as interrupted (resumable), as after a quit
                    "UPDATE runs SET status='queued', error=?, updated_at=?"
                    " WHERE id=? AND status='running'",
                    (INTERRUPTED, now_iso(), row[0]),
                )
                if cursor.rowcount:
                    recovered.append(row[0])
        return recovered
