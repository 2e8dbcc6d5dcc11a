"""What front ends call: review, plan (dry run), apply, resume and undo merges of a review.

merges = Merges(services.store, services.vault)
plan = merges.plan("3fa2")          # a dry run: plan.diff() is what the user sees
merges.apply(plan)                  # journaled; raises ApplyInterrupted halfway
merges.undo("3fa2")                 # the vault and the index as they were before
"""

from __future__ import annotations

from typing import Any

from core.merges.catalog import ConceptInfo, load_concepts
from core.merges.clusters import Cluster, build_clusters
from core.merges.journal import ApplyInterrupted, Journal
from core.merges.plan import MergePlan, plan_review
from core.merges.reviews import Review, ReviewsRepo
from core.store import Store

__all__ = ["ApplyInterrupted", "Merges"]


class Merges:
    """Reviews and their application to one vault (a core.services.VaultHandle)."""

    def __init__(self, store: Store, vault: Any) -> None:
        if vault is None:
            raise ValueError("no vault is configured")
        self.store = store
        self.vault = vault
        self.reviews = ReviewsRepo(store)
        index = getattr(vault, "index", None)
        reindex = index.index_paths if index is not None else None
        self.journal = Journal(store, vault.writer, reindex)

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
        return self.journal.apply(plan)

    def resume(self, review_id: str) -> int:
        """Finish the review's interrupted apply."""
        review = self.review(review_id)
        latest = self.journal.latest(review.id)
        if latest is None or latest[1] not in ("in_progress", "interrupted"):
            raise ValueError(f"review {review.id} has no unfinished apply")
        self.journal.resume(latest[0])
        return latest[0]

    def undo(self, review_id: str) -> int:
        """Undo the review's latest apply (finished or interrupted)."""
        return self.journal.undo(self.review(review_id).id)

    def unfinished(self) -> list[tuple[str, int, str]]:
        """(review id, journal id, error) of every apply left halfway."""
        rows = self.store.query(
            "SELECT review_id, id, COALESCE(error, '') FROM merge_journals"
            " WHERE status IN ('in_progress', 'interrupted') ORDER BY id"
        )
        return [(r[0], r[1], r[2]) for r in rows]
