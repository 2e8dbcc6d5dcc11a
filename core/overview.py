"""What the index says about the vault at a glance, for front ends: how many notes of each kind,
concepts and unprocessed sources, and where each source note stands with the extraction flow.

Front ends (the TUI's home, extraction and lesson screens, the command palette) read these and
execute no SQL of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from core.ingest import problem_count
from core.store import Store
from core.store.runs import RunsRepo

EXTRACTION = "extraction"
OPEN_RUN_STATUSES = ("queued", "running", "awaiting_review", "failed")
"""An extraction run in one of these says where its source stands; a done or cancelled one
gives the word back to the source's `processed_date`."""
SOURCE_STATUS_ORDER = ("awaiting review", "running", "queued", "failed", "unprocessed", "processed")
"""Sources are listed by status in this order (what needs the user first), then by path."""


@dataclass(frozen=True)
class NoteCounts:
    """Counts from the index tables."""

    kinds: dict[str, int]
    """Notes by kind (`source`, `concept`, `lesson`, ...)."""
    concepts: int
    unprocessed: int
    """Source notes not extracted yet (no `processed_date`)."""
    problems: int
    """Notes the index could not take as they are (core.ingest.vault_problems)."""

    @property
    def notes(self) -> int:
        return sum(self.kinds.values())


def note_counts(store: Store) -> NoteCounts:
    """Notes by kind, concepts, unprocessed sources and notes with problems."""
    rows = store.query("SELECT kind, COUNT(*) FROM notes GROUP BY kind")
    unprocessed = "SELECT COUNT(*) FROM sources WHERE processed_date IS NULL"
    return NoteCounts(
        kinds={str(row[0]): int(row[1]) for row in rows},
        concepts=int(store.query_one("SELECT COUNT(*) FROM concepts")[0]),
        unprocessed=int(store.query_one(unprocessed)[0]),
        problems=problem_count(store),
    )


class SourceStatus(NamedTuple):
    """Where a source note stands."""

    path: str
    title: str
    status: str
    """One of SOURCE_STATUS_ORDER (`awaiting review` with a space: it is shown)."""
    run_id: str | None
    """The extraction run that says so, when one does."""


def source_statuses(store: Store) -> list[SourceStatus]:
    """Every source note with its status: its latest open extraction run's, else processed or
    unprocessed; what needs the user first (SOURCE_STATUS_ORDER), then by path."""
    runs: dict[str, tuple[str, str]] = {}
    for run in reversed(RunsRepo(store).list(flow=EXTRACTION)):  # oldest first: newest wins
        if run.status in OPEN_RUN_STATUSES:
            runs[run.target] = (run.status.replace("_", " "), run.id)
        else:
            runs.pop(run.target, None)
    statuses = []
    for row in store.query("SELECT path, title, processed_date FROM sources ORDER BY path"):
        fallback = ("processed" if row["processed_date"] else "unprocessed", None)
        status, run_id = runs.get(row["path"], fallback)
        statuses.append(SourceStatus(row["path"], row["title"], status, run_id))
    order = SOURCE_STATUS_ORDER
    return sorted(statuses, key=lambda s: (order.index(s.status), s.path))
