"""Applying a merge plan with a journal, resuming an interrupted apply, and undoing an apply.

The whole plan (every file's bytes before, its text after, every move) is journaled in the
store before the first vault write; each step is marked done as it completes. A crash or a
conflict halfway leaves the journal `in_progress` / `interrupted` and the review says so:
`resume` finishes it, `undo` restores every file byte for byte. Nothing is ever half-done
silently, and a file the user changed after the apply is never overwritten by an undo.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from core.merges.plan import MergePlan
from core.merges.reviews import ReviewsRepo
from core.store import Store
from core.store.runs import now_iso
from vault.crashpoints import crash_point
from vault.note import content_hash
from vault.writer import ConflictError, VaultWriter

Reindex = Callable[[list[str]], Any]
"""Re-index these vault paths after they changed (VaultIndex.index_paths)."""


class ApplyInterrupted(Exception):
    """An apply stopped halfway; the journal knows where. Resume or undo it."""

    def __init__(self, journal_id: int, step: int, error: str) -> None:
        super().__init__(
            f"apply interrupted at step {step} ({error}); resume or undo journal {journal_id}"
        )
        self.journal_id = journal_id
        self.step = step
        self.error = error


@dataclass(frozen=True)
class Step:
    seq: int
    kind: str
    path: str
    new_path: str | None
    before_hash: str
    before_bytes: bytes | None
    after_hash: str
    after_text: str | None
    done: bool


class Journal:
    """The journals of merge applies in the store."""

    def __init__(self, store: Store, writer: VaultWriter, reindex: Reindex | None = None) -> None:
        self.store = store
        self.writer = writer
        self.reindex = reindex
        self.reviews = ReviewsRepo(store)

    # -- reading -----------------------------------------------------------------------------

    def latest(self, review_id: str) -> tuple[int, str] | None:
        """(journal id, status) of the review's latest journal."""
        row = self.store.query_one(
            "SELECT id, status FROM merge_journals WHERE review_id=? ORDER BY id DESC LIMIT 1",
            (review_id,),
        )
        return (row[0], row[1]) if row else None

    def steps(self, journal_id: int) -> list[Step]:
        rows = self.store.query(
            "SELECT seq, kind, path, new_path, before_hash, before_bytes, after_hash, after_text,"
            " done FROM merge_journal_steps WHERE journal_id=? ORDER BY seq",
            (journal_id,),
        )
        return [Step(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bool(r[8])) for r in rows]

    # -- apply -------------------------------------------------------------------------------

    def apply(self, plan: MergePlan) -> int:
        """Check every file, journal the plan, then write and move. Returns the journal id."""
        latest = self.latest(plan.review_id)
        if latest and latest[1] in ("in_progress", "interrupted"):
            raise ApplyInterrupted(latest[0], -1, "an earlier apply of this review is unfinished")
        for write in plan.writes:
            if self.writer.current_hash(write.path) != write.before_hash:
                raise ConflictError(f"{write.path} changed since the plan was made; plan again")
        written = {w.path for w in plan.writes}
        for move in plan.moves:
            if (
                move.path not in written
                and self.writer.current_hash(move.path) != move.expected_hash
            ):
                raise ConflictError(f"{move.path} changed since the plan was made")
        journal_id = self._record(plan)
        self._run(journal_id)
        return journal_id

    def _record(self, plan: MergePlan) -> int:
        stamp = now_iso()
        with self.store.transaction():
            cursor = self.store.execute(
                "INSERT INTO merge_journals (review_id, status, created_at, updated_at)"
                " VALUES (?, 'in_progress', ?, ?)",
                (plan.review_id, stamp, stamp),
            )
            journal_id = int(cursor.lastrowid)
            rows: list[tuple[Any, ...]] = [
                (
                    journal_id,
                    i,
                    "write",
                    w.path,
                    None,
                    w.before_hash,
                    w.before_text.encode("utf-8"),
                    content_hash(w.after_text.encode("utf-8")),
                    w.after_text,
                )
                for i, w in enumerate(plan.writes)
            ]
            rows += [
                (
                    journal_id,
                    len(rows) + i,
                    "move",
                    m.path,
                    m.new_path,
                    m.expected_hash,
                    None,
                    m.expected_hash,
                    None,
                )
                for i, m in enumerate(plan.moves)
            ]
            self.store.executemany(
                "INSERT INTO merge_journal_steps (journal_id, seq, kind, path, new_path,"
                " before_hash, before_bytes, after_hash, after_text) VALUES (?,?,?,?,?,?,?,?,?)",
                rows,
            )
        self.reviews.set_status(plan.review_id, "applying")
        return journal_id

    def resume(self, journal_id: int, skip: Iterable[str] = ()) -> None:
        """Finish an interrupted apply from its first step not done; the steps on the files
        in `skip` are left out (those files stay as they are, the journal says so)."""
        self._set(journal_id, "in_progress")
        self._run(journal_id, set(skip))

    def _run(self, journal_id: int, skip: set[str] | frozenset[str] = frozenset()) -> None:
        review_id = self._review_of(journal_id)
        touched: list[str] = []
        skipped: list[str] = []
        try:
            for step in self.steps(journal_id):
                if not step.done and step.path in skip:
                    skipped.append(step.path)
                    continue
                if not step.done:
                    self._forward(step)
                    self._mark(journal_id, step.seq, True)
                touched.extend(p for p in (step.path, step.new_path) if p)
        except Exception as exc:  # noqa: BLE001 - any failure leaves a resumable journal
            error = f"{type(exc).__name__}: {exc}"
            self._set(journal_id, "interrupted", error)
            self.reviews.set_status(review_id, "interrupted")
            self._reindex(touched + [s.path for s in self.steps(journal_id)])
            at = next((s.seq for s in self.steps(journal_id) if not s.done), -1)
            raise ApplyInterrupted(journal_id, at, error) from exc
        note = f"skipped (changed meanwhile, kept as they are): {', '.join(skipped)}"
        self._set(journal_id, "applied", note if skipped else None)
        self.reviews.set_status(review_id, "applied")
        self._reindex(touched)

    def _forward(self, step: Step) -> None:
        if step.kind == "write":
            current = self.writer.current_hash(step.path)
            if current == step.after_hash:
                return  # written before a crash, not yet marked
            self.writer.write(step.path, step.after_text or "", expected_hash=step.before_hash)
            return
        assert step.new_path is not None
        if (
            self.writer.current_hash(step.path) is None
            and self.writer.current_hash(step.new_path) == step.before_hash
        ):
            return  # moved before a crash
        self.writer.move(step.path, step.new_path, expected_hash=step.before_hash)

    # -- undo --------------------------------------------------------------------------------

    def undo(self, review_id: str) -> int:
        """Restore every file the review's latest apply wrote; the review is pending again.

        Exactly the steps that were written are rolled back (an apply a conflict or a crash
        stopped halfway has steps it never wrote: their files stay as they are). Refused,
        before anything is touched, when a file noema wrote was changed afterwards.
        """
        latest = self.latest(review_id)
        if latest is None or latest[1] == "undone":
            raise ValueError(f"review {review_id} has no apply to undo")
        journal_id = latest[0]
        steps = self.steps(journal_id)
        self._check_undo(steps)
        touched: list[str] = []
        for step in reversed(steps):
            if self._backward(step):
                touched.extend(p for p in (step.path, step.new_path) if p)
            self._mark(journal_id, step.seq, False)
            crash_point("merge.undo_step")
        self._remove_empty_dirs(steps)
        self._set(journal_id, "undone")
        self.reviews.set_status(review_id, "pending")
        self._reindex(touched)
        return journal_id

    def _check_undo(self, steps: list[Step]) -> None:
        """Refuse before touching anything if a file noema wrote changed after the apply."""
        changed = [
            s.path
            for s in steps
            if s.kind == "write" and s.done and self.state(s, steps) not in ("after", "before")
        ]
        if changed:
            raise ConflictError(
                f"{', '.join(changed)} changed after the merge; undo refused (it would lose"
                " that edit)"
            )

    def state(self, step: Step, steps: list[Step]) -> str:
        """Where a step's file is: "before" or "after" the step, "edited" (by someone else
        since the plan) or "gone"."""
        if step.kind == "move":
            assert step.new_path is not None
            source, target = (
                self.writer.current_hash(step.path),
                self.writer.current_hash(step.new_path),
            )
            if source is None and target is not None:
                return "after"
            if source == step.before_hash:
                return "before"
            return "gone" if source is None else "edited"
        current = self.writer.current_hash(step.path)
        if current is None:  # a later step of the plan may have moved it (a renamed canonical)
            move = next((m for m in steps if m.kind == "move" and m.path == step.path), None)
            current = self.writer.current_hash(move.new_path) if move and move.new_path else None
        if current == step.after_hash:
            return "after"
        if current == step.before_hash:
            return "before"
        return "gone" if current is None else "edited"

    def conflicts(self, journal_id: int) -> list[str]:
        """Files the unfinished steps would write or move that changed since the plan."""
        steps = self.steps(journal_id)
        return [s.path for s in steps if not s.done and self.state(s, steps) in ("edited", "gone")]

    def blocks_rollback(self, journal_id: int) -> list[str]:
        """Files written by finished steps that were changed afterwards (no exact rollback)."""
        steps = self.steps(journal_id)
        return [
            s.path
            for s in steps
            if s.kind == "write" and s.done and self.state(s, steps) in ("edited", "gone")
        ]

    def _backward(self, step: Step) -> bool:
        if step.kind == "move":
            assert step.new_path is not None
            if self.writer.current_hash(step.path) is None and self.writer.current_hash(
                step.new_path
            ):
                self.writer.move(step.new_path, step.path)
                return True
            return False
        if self.writer.current_hash(step.path) != step.after_hash:
            return False  # never written (or already restored): the file stays as it is
        before = (step.before_bytes or b"").decode("utf-8")
        self.writer.write(step.path, before, expected_hash=step.after_hash)
        return True

    def _remove_empty_dirs(self, steps: list[Step]) -> None:
        """Folders the apply created for moves (e.g. the archive's) go when empty again."""
        for step in steps:
            if step.kind == "move" and step.new_path:
                parent = PurePosixPath(step.new_path).parent
                while str(parent) not in ("", "."):
                    with contextlib.suppress(OSError):
                        os.rmdir(self.writer.resolve(str(parent)))
                    parent = parent.parent

    # -- bookkeeping ---------------------------------------------------------------------------

    def _review_of(self, journal_id: int) -> str:
        row = self.store.query_one("SELECT review_id FROM merge_journals WHERE id=?", (journal_id,))
        if row is None:
            raise KeyError(f"no journal {journal_id}")
        return str(row[0])

    def _mark(self, journal_id: int, seq: int, done: bool) -> None:
        self.store.execute(
            "UPDATE merge_journal_steps SET done=? WHERE journal_id=? AND seq=?",
            (int(done), journal_id, seq),
        )

    def _set(self, journal_id: int, status: str, error: str | None = None) -> None:
        self.store.execute(
            "UPDATE merge_journals SET status=?, error=?, updated_at=? WHERE id=?",
            (status, error, now_iso(), journal_id),
        )

    def _reindex(self, paths: list[str]) -> None:
        if self.reindex is not None and paths:
            self.reindex(list(dict.fromkeys(paths)))
