"""Finishing committed extractions: the vault half of a commit, and `noema repair`.

An extraction commits to the store first (concepts, relations, quote links and a `pending`
plan, in one transaction), then writes the vault: block ids on the quotes, new concept notes,
minimal edits of existing ones, then `processed_date` on the source. Every step checks what
is already there, so running a plan again never writes anything twice. `repair(services)`
(run by `noema repair` and at start-up) applies every plan still pending; a plan that can
never be written (a path that leads out of the vault) is abandoned with the reason instead of
retried forever, and its store half is undone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from core.concept_notes import NoteLinks, QuoteRef, add_quotes, add_relations
from core.domain import Relation
from core.leases import Leases, merge_lease, run_lease
from core.sources import source_from_note
from core.store import Store
from core.store.runs import RunsRepo, now_iso
from core.taken_paths import replan_taken_paths
from vault.frontmatter_edit import set_fields
from vault.linkformat import Linker
from vault.sources import block_id_inserts, parse_quotes
from vault.writer import PathEscapeError, VaultWriteError, VaultWriter

if TYPE_CHECKING:
    from core.services import Services
    from core.vault_handle import VaultHandle

Progress = Callable[[str, int, int], None]
"""progress(message, done, total) while a plan is applied."""


class NoteCreate(BaseModel):
    """A new concept note."""

    path: str
    entity_id: str
    text: str


class NoteEdit(BaseModel):
    """Relations and quote links an existing concept note gains."""

    path: str
    entity_id: str
    relations: list[Relation] = Field(default_factory=list)
    quote_ids: list[str] = Field(default_factory=list)


class VaultPlan(BaseModel):
    """Everything a committed extraction writes to the vault."""

    run_id: str
    source: str
    """Vault-relative path of the source note."""
    source_name: str
    """The source note's name, as `[[name#^id]]` links use it."""
    block_ids: list[str] = Field(default_factory=list)
    """Quotes cited by concepts; those without a written block id get one."""
    create: list[NoteCreate] = Field(default_factory=list)
    edit: list[NoteEdit] = Field(default_factory=list)
    names: dict[str, str] = Field(default_factory=dict)
    """Concept UUID -> the vault path of its note (plans of older versions: its name), for
    the links to it."""
    processed_date: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds")
    )


def record_plan(conn: Store, plan: VaultPlan) -> None:
    """Insert the pending plan (inside the caller's store transaction)."""
    stamp = now_iso()
    conn.execute(
        "INSERT INTO extraction_commits (run_id, source_path, status, plan_json, created_at,"
        " updated_at) VALUES (?, ?, 'pending', ?, ?, ?)",
        (plan.run_id, plan.source, plan.model_dump_json(), stamp, stamp),
    )


def commit_status(store: Store, run_id: str) -> str | None:
    row = store.query_one("SELECT status FROM extraction_commits WHERE run_id=?", (run_id,))
    return None if row is None else str(row[0])


def load_plan(store: Store, run_id: str) -> VaultPlan | None:
    row = store.query_one("SELECT plan_json FROM extraction_commits WHERE run_id=?", (run_id,))
    return None if row is None else VaultPlan.model_validate_json(row[0])


def pending_plans(store: Store) -> list[VaultPlan]:
    rows = store.query(
        "SELECT plan_json FROM extraction_commits WHERE status='pending' ORDER BY created_at"
    )
    return [VaultPlan.model_validate_json(row[0]) for row in rows]


def _note(progress: Progress | None, message: str, done: int, total: int) -> None:
    if progress is not None:
        progress(message, done, total)


def write_block_ids(writer: VaultWriter, plan: VaultPlan) -> list[str]:
    """Give the cited quotes without a block id their id (` ^id` at the quote's end)."""
    note = writer.read(plan.source)
    inserts = block_id_inserts(parse_quotes(note), set(plan.block_ids))
    if not inserts:
        return []
    writer.insert_at(plan.source, inserts, expected_hash=note.hash)
    return [plan.source]


def create_note(writer: VaultWriter, item: NoteCreate) -> bool:
    """Write a new note unless it is already there (a plan applied before)."""
    if writer.current_hash(item.path) is not None:
        existing = writer.read(item.path).frontmatter.get("entity_id")
        if str(existing) == item.entity_id:
            return False
        raise VaultWriteError(f"{item.path} exists and is another note; not overwriting it")
    writer.create(item.path, item.text)
    return True


def edit_note(
    writer: VaultWriter, plan: VaultPlan, item: NoteEdit, linker: Linker | None = None
) -> bool:
    """Add relations and quote links to an existing note; unchanged when it has them. Links
    are written in the vault's style (`linker`, else the writer's)."""
    note = writer.read(item.path)
    text = note.text
    if not note.frontmatter.get("entity_id"):
        text = set_fields(text, {"entity_id": item.entity_id})
    links = NoteLinks(plan.names, linker or writer.linker(), item.path)
    text = add_relations(text, item.relations, links)
    quotes = [QuoteRef(plan.source_name, q, path=plan.source) for q in item.quote_ids]
    text = add_quotes(text, quotes, links)
    if text == note.text:
        return False
    writer.write(item.path, text, expected_hash=note.hash)
    return True


def write_notes(
    writer: VaultWriter, plan: VaultPlan, progress: Progress | None = None
) -> list[str]:
    """Step 3.2: block ids, new notes, edits of existing notes. Returns the paths written."""
    written = write_block_ids(writer, plan)
    total = len(plan.create) + len(plan.edit)
    for done, item in enumerate(plan.create, 1):
        if create_note(writer, item):
            written.append(item.path)
        _note(progress, f"wrote {item.path}", done, total)
    linker = writer.linker() if plan.edit else None
    for done, change in enumerate(plan.edit, len(plan.create) + 1):
        if edit_note(writer, plan, change, linker):
            written.append(change.path)
        _note(progress, f"updated {change.path}", done, total)
    return written


def mark_processed(store: Store, writer: VaultWriter, plan: VaultPlan) -> list[str]:
    """Step 3.3: `processed_date` on the source note and its row (kept if already set)."""
    note = writer.read(plan.source)
    written = []
    if source_from_note(note).processed_date is None:
        writer.set_frontmatter(
            plan.source, {"processed_date": plan.processed_date}, expected_hash=note.hash
        )
        written.append(plan.source)
    store.execute(
        "UPDATE sources SET processed_date=? WHERE path=?", (plan.processed_date, plan.source)
    )
    return written


def finish_plan(store: Store, run_id: str, written: Iterable[str]) -> None:
    store.execute(
        "UPDATE extraction_commits SET status='done', written_json=?, error=NULL, updated_at=?"
        " WHERE run_id=?",
        (json.dumps(sorted(set(written))), now_iso(), run_id),
    )


def record_error(store: Store, run_id: str, error: str) -> None:
    store.execute(
        "UPDATE extraction_commits SET error=?, updated_at=? WHERE run_id=?",
        (error, now_iso(), run_id),
    )


def apply_plan(
    store: Store,
    writer: VaultWriter,
    plan: VaultPlan,
    reindex: Callable[..., object] | None = None,
    progress: Progress | None = None,
) -> list[str]:
    """Every step of a plan, then the plan is done. Idempotent."""
    planned = {c.path for c in plan.create}
    plan = replan_taken_paths(store, writer, plan)
    written = write_notes(writer, plan, progress)
    written += mark_processed(store, writer, plan)
    touched = sorted(
        {
            plan.source,
            *written,
            *planned,
            *(c.path for c in plan.create),
            *(e.path for e in plan.edit),
        }
    )
    if reindex is not None:
        reindex(*touched)
    finish_plan(store, plan.run_id, written)
    return sorted(set(written))


def abandon_plan(
    store: Store, plan: VaultPlan, reason: str, reindex: Callable[..., object]
) -> None:
    """Give up a commit that can never be written: it is marked `abandoned` with the reason,
    and the index forgets what its store half added (the notes it touched are read again from
    the vault, the source of truth)."""
    touched = [*(c.path for c in plan.create), *(e.path for e in plan.edit)]
    with store.transaction() as conn:
        conn.executemany(
            "UPDATE notes SET hash='abandoned', mtime_ns=0 WHERE path=?", [(p,) for p in touched]
        )
        conn.execute(
            "UPDATE extraction_commits SET status='abandoned', error=?, updated_at=?"
            " WHERE run_id=?",
            (f"abandoned: {reason}", now_iso(), plan.run_id),
        )
    reindex(*touched)


@dataclass
class RepairReport:
    """What `repair` did."""

    finished: list[str] = field(default_factory=list)
    """Run ids whose commit is now complete."""
    written: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Commits still pending (they are tried again), with why."""
    abandoned: list[str] = field(default_factory=list)
    """Commits given up for good (they can never be written: a path out of the vault), with
    why."""
    done_elsewhere: list[str] = field(default_factory=list)
    """Run ids another process finished while this one waited for them."""
    busy: list[str] = field(default_factory=list)
    """Run ids another live process is still writing (left to it)."""
    temp_removed: list[str] = field(default_factory=list)
    """Temporary files a killed process left in the vault, now removed."""
    recovered: list[str] = field(default_factory=list)
    """Runs a dead process left `running`, queued again."""
    unfinished_merges: list[str] = field(default_factory=list)
    """Review ids whose merge apply a crash or a conflict stopped halfway."""

    def summary(self) -> str:
        lines = []
        if self.finished or self.errors:
            lines.append(
                f"{len(self.finished)} commit(s) finished, {len(self.written)} file(s) written"
                + (
                    f"; {len(self.errors)} still pending: " + "; ".join(self.errors)
                    if self.errors
                    else ""
                )
            )
        lines += [f"abandoned {r}" for r in self.abandoned]
        lines += [f"{r[:8]}: already done by another process" for r in self.done_elsewhere]
        lines += [f"{r[:8]}: another noema process is writing it; left to it" for r in self.busy]
        if self.recovered:
            lines.append(f"{len(self.recovered)} interrupted run(s) queued again")
        if self.temp_removed:
            lines.append(f"{len(self.temp_removed)} temporary file(s) of a killed process removed")
        lines += [
            f"apply of review {r[:8]} was interrupted: noema merges apply {r[:8]} --resume"
            f" finishes it, noema merges undo {r[:8]} rolls it back"
            for r in self.unfinished_merges
        ]
        return "\n".join(lines) or "nothing to repair"


def repair(
    services: Services, wait: float = 30.0, on_wait: Callable[[str, str], None] | None = None
) -> RepairReport:
    """Finish every pending extraction commit (at start-up and by `noema repair`).

    Also queues runs a dead process left `running`, removes the temporary files a killed
    process left in the vault and names merge applies left halfway. A commit another live
    process is writing is waited for (up to `wait` seconds; `on_wait(run_id, holder)` is told
    once), then reported as done by it.
    """
    services.recover_interrupted()
    result = RepairReport(recovered=list(getattr(services, "recovered", [])))
    plans = pending_plans(services.store)
    if services.vault is None:
        result.errors = [f"{p.run_id}: no vault configured" for p in plans]
        return result
    result.temp_removed = services.vault.writer.remove_temp_leftovers()
    leases = Leases.of_store(services.store)
    for plan in plans:
        told = None if on_wait is None else (lambda holder, r=plan.run_id: on_wait(r, holder))
        lease = leases.wait(run_lease(plan.run_id), timeout=wait, on_wait=told)
        if lease is None:
            result.busy.append(plan.run_id)
            continue
        with lease:
            _repair_one(services, services.vault, plan.run_id, result)
    result.unfinished_merges = unfinished_merges(services.store, leases)
    return result


def _repair_one(services: Services, vault: VaultHandle, run_id: str, result: RepairReport) -> None:
    """Apply one pending plan (the caller holds the run's lease)."""
    plan = load_plan(services.store, run_id)  # read again: another process may have done it
    if plan is None or commit_status(services.store, run_id) == "done":
        result.done_elsewhere.append(run_id)
        return
    try:
        written = apply_plan(services.store, vault.writer, plan, vault.reindex)
    except PathEscapeError as exc:  # never writable: retrying would loop forever
        _abandon(services, vault, plan, str(exc), result)
        return
    except Exception as exc:  # noqa: BLE001 - one broken plan must not stop the others
        error = f"{type(exc).__name__}: {exc}"
        record_error(services.store, run_id, error)
        result.errors.append(f"{run_id}: {error}")
        return
    result.finished.append(run_id)
    result.written += written
    runs = RunsRepo(services.store)
    try:
        if runs.get(run_id).status in ("failed", "queued", "running"):
            runs.set_status(run_id, "done")
    except KeyError:
        pass


def _abandon(
    services: Services, vault: VaultHandle, plan: VaultPlan, reason: str, result: RepairReport
) -> None:
    abandon_plan(services.store, plan, reason, vault.reindex)
    result.abandoned.append(f"{plan.run_id}: {reason}")
    RunsRepo(services.store).set_status(plan.run_id, "failed", error=f"commit abandoned: {reason}")


COMMIT_NODES = {"commit_store", "write_vault", "mark_source"}
"""The extraction's steps after an approval; they need no model."""


async def finish_approved(services: Services) -> list[str]:
    """Extraction runs a crash stopped after their approval but before their commit (the
    checkpoint's next step is the commit) are driven to the end: the answer the user gave
    is not lost and no model is needed. Returns their ids."""
    from core.events import Done
    from core.runtime import RunBusy

    finished: list[str] = []
    if "extraction" not in services.runtime.flows:
        return finished
    for run in services.runtime.list_runs(flow="extraction"):
        if run.status not in ("queued", "failed"):
            continue
        snapshot = await services.runtime.state(run.id)
        if not COMMIT_NODES & set(snapshot.next):
            continue
        try:
            events = await services.runtime.run_until_pause(run.id)
        except RunBusy:
            continue  # another live process is finishing it
        if events and isinstance(events[-1], Done):
            finished.append(run.id)
    return finished


def unfinished_merges(store: Store, leases: Leases) -> list[str]:
    """Reviews whose latest merge apply stopped halfway and that no live process applies."""
    rows = store.query(
        "SELECT review_id FROM merge_journals j WHERE status IN ('in_progress', 'interrupted')"
        " AND id = (SELECT MAX(id) FROM merge_journals WHERE review_id = j.review_id)"
    )
    return [row[0] for row in rows if leases.is_free(merge_lease(row[0]))]
