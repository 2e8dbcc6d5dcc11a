"""What front ends call: review, plan (dry run), apply, resume and undo merges of a review.

merges = Merges(services.store, services.vault)
plan = merges.plan("3fa2")          # a dry run: plan.diff() is what the user sees
merges.apply(plan)                  # journaled; raises ApplyInterrupted halfway
merges.undo("3fa2")                 # the vault and the index as they were before

One process at a time applies, resumes or undoes a review: each holds the review's lease
(core.leases) meanwhile; another gets LeaseHeld at once, or waits with `exclusive(id, wait=)`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.leases import Lease, LeaseHeld, Leases, merge_lease
from core.merges.catalog import ConceptInfo, load_concepts
from core.merges.clusters import Cluster, build_clusters
from core.merges.journal import ApplyInterrupted, Journal
from core.merges.plan import MergePlan, plan_review
from core.merges.reviews import Review, ReviewsRepo
from core.store import Store

if TYPE_CHECKING:
    from core.vault_handle import VaultHandle

__all__ = ["AlreadyApplied", "ApplyInterrupted", "LeaseHeld", "Merges", "Resumed"]


class AlreadyApplied(ValueError):
    """The review's merges are applied already (undo them first to apply again)."""


@dataclass
class Resumed:
    """How an interrupted apply was finished."""

    journal_id: int
    replanned: list[str] = field(default_factory=list)
    """Files changed since the plan: the apply was rolled back and planned again over them."""
    skipped: list[str] = field(default_factory=list)
    """Files changed since the plan whose steps were left out (no exact rollback possible)."""


class Merges:
    """Reviews and their application to one vault (a core.services.VaultHandle)."""

    def __init__(self, store: Store, vault: VaultHandle | None) -> None:
        if vault is None:
            raise ValueError("no vault is configured")
        self.store = store
        self.vault = vault
        self.reviews = ReviewsRepo(store)
        index = getattr(vault, "index", None)
        reindex = index.index_paths if index is not None else None
        self.journal = Journal(store, vault.writer, reindex)
        self.leases = Leases.of_store(store)
        self._held: dict[str, tuple[Lease, int]] = {}

    @contextlib.contextmanager
    def exclusive(
        self, review_id: str, wait: float | None = 0, on_wait: Callable[[str], None] | None = None
    ) -> Iterator[bool]:
        """Hold the review's lease for the block (re-entrant); yields whether it had to wait
        for another process. LeaseHeld when still held after `wait` seconds (None: forever)."""
        if review_id in self._held:
            lease, depth = self._held[review_id]
            self._held[review_id] = (lease, depth + 1)
            waited = False
        else:
            name = merge_lease(review_id)
            taken = self.leases.try_take(name)
            waited = taken is None
            if taken is None and wait != 0:
                taken = self.leases.wait(name, timeout=wait, on_wait=on_wait)
            if taken is None:
                raise LeaseHeld(name, self.leases.holder(name))
            lease = taken
            self._held[review_id] = (lease, 1)
        try:
            yield waited
        finally:
            lease, depth = self._held[review_id]
            if depth == 1:
                del self._held[review_id]
                lease.release()
            else:
                self._held[review_id] = (lease, depth - 1)

    def review(self, review_id: str) -> Review:
        return self.reviews.get(review_id)

    def concepts(self) -> dict[str, ConceptInfo]:
        return {c.id: c for c in load_concepts(self.store)}

    def clusters(self, review_id: str, *, include_pending: bool = True) -> list[Cluster]:
        """The review's clusters (pending items included unless asked otherwise)."""
        review = self.review(review_id)
        items = [i for i in review.items if include_pending or i.status == "accepted"]
        choices = self.reviews.canonical_choices(review.id)
        return build_clusters(items, self.concepts(), choices)

    def plan(self, review_id: str) -> MergePlan:
        """The dry run of applying the review's accepted merges (on a freshly synced index)."""
        index = getattr(self.vault, "index", None)
        if index is not None:
            index.sync_files()
        return plan_review(self.store, self.vault.writer, self.vault.layout, self.review(review_id))

    def apply(self, plan: MergePlan) -> int:
        """Apply a plan (journaled); returns the journal id."""
        with self.exclusive(plan.review_id):
            if self.review(plan.review_id).status == "applied":
                raise AlreadyApplied(f"review {plan.review_id[:8]} is already applied")
            return self.journal.apply(plan)

    def resume(self, review_id: str) -> Resumed:
        """Finish the review's interrupted apply.

        Files nobody touched get the planned steps. When files the remaining steps would write
        changed since the plan (the user saved a note meanwhile), the written steps are rolled
        back exactly and the review is planned again over the vault as it is now, then
        applied; if a file noema already wrote was changed too (no exact rollback), the
        steps on the changed files are skipped and those files keep their content.
        """
        with self.exclusive(review_id):
            review = self.review(review_id)
            latest = self.journal.latest(review.id)
            if latest is None or latest[1] not in ("in_progress", "interrupted"):
                raise ValueError(f"review {review.id} has no unfinished apply")
            self.vault.writer.remove_temp_leftovers()  # what the interrupted process left
            changed = self.journal.conflicts(latest[0])
            if not changed:
                self.journal.resume(latest[0])
                return Resumed(latest[0])
            if self.journal.blocks_rollback(latest[0]):
                self.journal.resume(latest[0], skip=changed)
                return Resumed(latest[0], skipped=changed)
            self.journal.undo(review.id)
            return Resumed(self.journal.apply(self.plan(review.id)), replanned=changed)

    def undo(self, review_id: str) -> int:
        """Undo the review's latest apply (finished or interrupted)."""
        with self.exclusive(review_id):
            review = self.review(review_id)
            self.vault.writer.remove_temp_leftovers()  # an apply killed halfway left them
            return self.journal.undo(review.id)

    def unfinished(self) -> list[tuple[str, int, str]]:
        """(review id, journal id, error) of every apply left halfway."""
        rows = self.store.query(
            "SELECT review_id, id, COALESCE(error, '') FROM merge_journals"
            " WHERE status IN ('in_progress', 'interrupted') ORDER BY id"
        )
        return [(r[0], r[1], r[2]) for r in rows]
