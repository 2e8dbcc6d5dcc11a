"""Reviews of accepted merges and the weak merges remembered forever (migration 0004)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.store import Store
from core.store.runs import now_iso

ItemStatus = str
"""pending, accepted or rejected."""


@dataclass(frozen=True)
class ReviewItem:
    """One merge of a review."""

    key: str
    a_id: str
    b_id: str
    a_name: str
    b_name: str
    reason: str
    origin: str
    status: ItemStatus
    position: int = 0


@dataclass(frozen=True)
class Review:
    """A stored review: its status, its items and the trend of the run that made it."""

    id: str
    run_id: str
    status: str
    trend: list[int]
    created_at: str
    items: list[ReviewItem]

    def counts(self) -> dict[str, int]:
        found = {"pending": 0, "accepted": 0, "rejected": 0}
        for item in self.items:
            found[item.status] = found.get(item.status, 0) + 1
        return found


class ReviewsRepo:
    """Reviews, their items, canonical choices and the weak merges, in the store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- weak merges -----------------------------------------------------------------------

    def weak_merges(self) -> dict[str, dict[str, Any]]:
        """Every weak merge ever recorded, by key."""
        rows = self.store.query("SELECT * FROM normalization_weak_merges ORDER BY created_at")
        return {r["key"]: {k: r[k] for k in r.keys() if k != "created_at"} for r in rows}  # noqa: SIM118

    def add_weak(self, weak: Iterable[Mapping[str, Any]], run_id: str = "") -> None:
        """Remember weak merges (a key already known keeps its first reason)."""
        stamp = now_iso()
        self.store.executemany(
            "INSERT OR IGNORE INTO normalization_weak_merges"
            " (key, a_id, b_id, a_name, b_name, reason, explanation, origin, run_id, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    w["key"],
                    w["a_id"],
                    w["b_id"],
                    w["a_name"],
                    w["b_name"],
                    w.get("reason", ""),
                    w.get("explanation", ""),
                    w.get("origin", "evaluator"),
                    run_id,
                    stamp,
                )
                for w in weak
            ],
        )

    # -- reviews ---------------------------------------------------------------------------

    def create(
        self, review_id: str, run_id: str, merges: Iterable[Mapping[str, Any]], trend: list[int]
    ) -> Review:
        """Store a review with every merge as a pending item (idempotent for one id)."""
        stamp = now_iso()
        with self.store.transaction():
            self.store.execute(
                "INSERT OR IGNORE INTO normalization_reviews"
                " (id, run_id, status, trend_json, created_at, updated_at)"
                " VALUES (?, ?, 'pending', ?, ?, ?)",
                (review_id, run_id, json.dumps(trend), stamp, stamp),
            )
            self.store.executemany(
                "INSERT OR IGNORE INTO normalization_review_items"
                " (review_id, key, position, a_id, b_id, a_name, b_name, reason, origin)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        review_id,
                        m["key"],
                        i,
                        m["a_id"],
                        m["b_id"],
                        m["a_name"],
                        m["b_name"],
                        m.get("reason", ""),
                        m.get("origin", "model"),
                    )
                    for i, m in enumerate(merges)
                ],
            )
        return self.get(review_id)

    def get(self, review_id: str) -> Review:
        """The review with this id or id prefix (KeyError when none or ambiguous)."""
        rows = self.store.query(
            "SELECT * FROM normalization_reviews WHERE id LIKE ? LIMIT 2", (review_id + "%",)
        )
        if len(rows) != 1:
            raise KeyError(
                f"no review {review_id}" if not rows else f"review id {review_id} is ambiguous"
            )
        row = rows[0]
        items = [
            ReviewItem(
                r["key"],
                r["a_id"],
                r["b_id"],
                r["a_name"],
                r["b_name"],
                r["reason"],
                r["origin"],
                r["status"],
                r["position"],
            )
            for r in self.store.query(
                "SELECT * FROM normalization_review_items WHERE review_id=? ORDER BY position",
                (row["id"],),
            )
        ]
        return Review(
            row["id"],
            row["run_id"],
            row["status"],
            json.loads(row["trend_json"]),
            row["created_at"],
            items,
        )

    def list(self) -> list[Review]:
        """Every review, newest first."""
        rows = self.store.query("SELECT id FROM normalization_reviews ORDER BY created_at DESC")
        return [self.get(r["id"]) for r in rows]

    def set_status(self, review_id: str, status: str) -> None:
        self.store.execute(
            "UPDATE normalization_reviews SET status=?, updated_at=? WHERE id=?",
            (status, now_iso(), review_id),
        )

    def set_item(self, review_id: str, key: str, status: ItemStatus) -> None:
        """Accept, reject or reset one item; a rejected merge becomes weak for future runs."""
        self.store.execute(
            "UPDATE normalization_review_items SET status=? WHERE review_id=? AND key=?",
            (status, review_id, key),
        )
        if status == "rejected":
            row = self.store.query_one(
                "SELECT * FROM normalization_review_items WHERE review_id=? AND key=?",
                (review_id, key),
            )
            if row is not None:
                weak = {k: row[k] for k in ("key", "a_id", "b_id", "a_name", "b_name")}
                weak.update(reason="rejected by the reviewer", origin="user")
                self.add_weak([weak], run_id=review_id)

    def accept_remaining(self, review_id: str) -> int:
        """Accept every pending item; returns how many."""
        cursor = self.store.execute(
            "UPDATE normalization_review_items SET status='accepted'"
            " WHERE review_id=? AND status='pending'",
            (review_id,),
        )
        return int(cursor.rowcount)

    # -- canonical choices -------------------------------------------------------------------

    def canonical_choices(self, review_id: str) -> dict[str, str | None]:
        """concept id chosen as canonical -> new title (None keeps its title)."""
        rows = self.store.query(
            "SELECT concept_id, new_title FROM normalization_canonicals WHERE review_id=?",
            (review_id,),
        )
        return {r[0]: r[1] for r in rows}

    def choose_canonical(
        self, review_id: str, concept_id: str, members: Iterable[str], new_title: str | None = None
    ) -> None:
        """Make `concept_id` the canonical of its cluster (`members`), optionally renamed."""
        with self.store.transaction():
            ids = list(members)
            self.store.execute(
                "DELETE FROM normalization_canonicals WHERE review_id=? AND concept_id IN"
                f" ({','.join('?' * len(ids))})",
                (review_id, *ids),
            )
            self.store.execute(
                "INSERT INTO normalization_canonicals (review_id, concept_id, new_title)"
                " VALUES (?, ?, ?)",
                (review_id, concept_id, new_title),
            )
