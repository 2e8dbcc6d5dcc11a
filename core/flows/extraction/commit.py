"""Phase 3: the store commit (3.1), the notes (3.2), the source marked processed (3.3).

3.1 writes, in ONE store transaction, the new concepts, every relation with its inverse, the
quote links and the pending vault plan (core.repair). 3.2 and 3.3 apply the plan through the
vault writer; if they fail, the plan stays pending and `noema repair` finishes it.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import PurePosixPath

from langgraph.runtime import Runtime

from core.concept_notes import NoteLinks, QuoteRef, parse_concept_note, render_concept_note
from core.context import FlowContext
from core.domain import Concept, Relation, with_inverses
from core.flows.extraction.nodes import options, report
from core.flows.extraction.proposal import Proposal
from core.flows.extraction.records import ExistingRow
from core.flows.extraction.state import ExtractionState
from core.repair import (
    NoteCreate,
    NoteEdit,
    VaultPlan,
    commit_status,
    finish_plan,
    load_plan,
    mark_processed,
    record_error,
    record_plan,
    write_notes,
)
from core.store import Store
from core.store.runs import now_iso
from core.taken_paths import replan_taken_paths
from vault.crashpoints import crash_point
from vault.index_rows import embedding_text, text_hash
from vault.linkformat import Linker
from vault.note import NoteUnreadable, parse_note
from vault.resolve import name_key
from vault.writer import VaultWriteError, VaultWriter


def _existing_rows(store: Store, ids: set[str]) -> dict[str, ExistingRow]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = store.query(
        f"SELECT entity_id, path, title FROM concepts WHERE entity_id IN ({marks})", list(ids)
    )
    return {
        row["entity_id"]: {
            "entity_id": row["entity_id"],
            "path": row["path"],
            "title": row["title"],
        }
        for row in rows
    }


def _new_paths(writer: VaultWriter, folder: str, proposal: Proposal) -> dict[str, str]:
    """A free note path per new concept: its name taken by no note of the vault, nor by
    another new concept (a bare `[[Name]]` link must stay unambiguous)."""
    paths: dict[str, str] = {}
    taken = writer.taken_names()
    for concept in proposal.concepts:
        path = writer.unique_path(folder, concept.title, taken=taken)
        paths[concept.id] = path
        taken.add(name_key(PurePosixPath(path).stem))
    return paths


def check_paths(writer: VaultWriter, plan: VaultPlan) -> None:
    """Every file the plan reads or writes stays inside the vault, and the source can be
    read: checked before the store commits, so a plan that could never be written is never
    committed (VaultWriteError says which file and why)."""
    for path in [plan.source, *(c.path for c in plan.create), *(e.path for e in plan.edit)]:
        writer.resolve(path)
    try:
        writer.read(plan.source)
    except (OSError, NoteUnreadable) as exc:
        raise VaultWriteError(f"{plan.source}: cannot be read ({exc})") from exc


def build_plan(
    state: ExtractionState, runtime: Runtime[FlowContext]
) -> tuple[VaultPlan, list[Concept], list[Relation], dict[str, ExistingRow]]:
    """The plan, the new concepts, every edge (inverses included) and the existing rows."""
    proposal = Proposal.model_validate(state["proposal"])
    vault, source = runtime.context.require_vault(), state["source"]
    edges, existing = _edges(proposal, runtime.context.store)
    paths = _new_paths(vault.writer, vault.layout.concepts, proposal)
    names = dict(paths) | {cid: row["path"] for cid, row in existing.items()}
    concepts, create = _new_notes(
        proposal, paths, names, vault.writer.linker(), edges, source, options(runtime).language
    )
    edits = _existing_edits(proposal, existing, edges)
    cited = [q for c in proposal.concepts for q in c.quote_ids] + [
        q for e in edits.values() for q in e.quote_ids
    ]
    plan = VaultPlan(
        run_id=runtime.context.run_id or source,
        source=source,
        source_name=PurePosixPath(source).stem,
        block_ids=list(dict.fromkeys(cited)),
        create=create,
        edit=[e for e in edits.values() if e.relations or e.quote_ids],
        names=names,
    )
    return plan, concepts, edges, existing


def _edges(proposal: Proposal, store: Store) -> tuple[list[Relation], dict[str, ExistingRow]]:
    """Every relation with its inverse, between concepts that exist (new, or rows in the
    store), and the rows of the existing concepts the proposal refers to."""
    new_ids = proposal.new_ids()
    edges = with_inverses(
        [
            Relation(
                source_id=r.source_id, type=r.type, target_id=r.target_id, explanation=r.explanation
            )
            for r in proposal.relations
        ]
    )
    referenced = {e.concept_id for e in proposal.existing} | {
        x for r in edges for x in (r.source_id, r.target_id)
    }
    existing = _existing_rows(store, referenced - new_ids)
    edges = [
        r for r in edges if all(x in new_ids or x in existing for x in (r.source_id, r.target_id))
    ]
    return edges, existing


def _new_notes(
    proposal: Proposal,
    paths: dict[str, str],
    names: dict[str, str],
    linker: Linker,
    edges: list[Relation],
    source: str,
    language: str,
) -> tuple[list[Concept], list[NoteCreate]]:
    """The new concepts and the notes that create them (with their relations and quotes)."""
    source_name = PurePosixPath(source).stem
    concepts, create = [], []
    for c in proposal.concepts:
        # the note's file name, its heading and the links to it are one text (13.8)
        concept = Concept(
            id=c.id,
            title=PurePosixPath(paths[c.id]).stem,
            short_summary=c.short_summary,
            summary=c.summary,
            concept=c.concept,
            analysis=c.analysis,
            language=language,
        )
        concepts.append(concept)
        quotes = [QuoteRef(source_name, q, path=source) for q in c.quote_ids]
        text = render_concept_note(concept, edges, NoteLinks(names, linker, paths[c.id]), quotes)
        create.append(NoteCreate(path=paths[c.id], entity_id=c.id, text=text))
    return concepts, create


def _existing_edits(
    proposal: Proposal, existing: dict[str, ExistingRow], edges: list[Relation]
) -> dict[str, NoteEdit]:
    """The edits of the existing concepts: their new relations and the quotes they get."""
    edits = {
        cid: NoteEdit(
            path=row["path"], entity_id=cid, relations=[r for r in edges if r.source_id == cid]
        )
        for cid, row in existing.items()
    }
    for link in proposal.existing:
        if link.concept_id in edits:
            edits[link.concept_id].quote_ids += link.quote_ids
    return edits


def _store_rows(db: Store, plan: VaultPlan, concepts: list[Concept], edges: list[Relation]) -> None:
    """The new concepts, relations and quote links in the index tables (one transaction)."""
    stamp = now_iso()
    paths = {c.entity_id: c.path for c in plan.create}
    for concept in concepts:
        path = paths[concept.id]
        title = PurePosixPath(path).stem
        digest = text_hash(embedding_text(title, [], concept.short_summary, concept.summary))
        db.execute(
            "INSERT OR IGNORE INTO notes VALUES (?, 'pending', 0, 0, 'concept', ?, '{}', ?)",
            (path, title, stamp),
        )
        db.execute(
            "INSERT INTO concepts (entity_id, path, title, aliases_json, short_summary, summary,"
            " language, text_hash) VALUES (?, ?, ?, '[]', ?, ?, ?, ?)",
            (
                concept.id,
                path,
                title,
                concept.short_summary,
                concept.summary,
                concept.language,
                digest,
            ),
        )
        db.execute(
            "INSERT INTO concepts_fts (rowid, title, aliases, short_summary, summary)"
            " SELECT id, ?, '', ?, ? FROM concepts WHERE entity_id=?",
            (title, concept.short_summary, concept.summary, concept.id),
        )
    db.executemany(
        "INSERT OR IGNORE INTO concept_relations VALUES (?, ?, ?)",
        [(r.source_id, r.type.value, r.target_id) for r in edges],
    )
    links = [(c.entity_id, q) for c in plan.create for q in _quotes_of(c, plan)]
    links += [(e.entity_id, q) for e in plan.edit for q in e.quote_ids]
    db.executemany(
        "INSERT OR IGNORE INTO quote_concepts VALUES (?, ?, ?)",
        [(cid, plan.source_name.lower(), q) for cid, q in links],
    )


def _quotes_of(item: NoteCreate, plan: VaultPlan) -> list[str]:
    """The ids of the source's quotes the new note cites (read back from its text)."""
    parsed = parse_concept_note(parse_note(item.path, item.text.encode("utf-8")))
    wanted = name_key(plan.source_name)
    return [q.quote_id for q in parsed.quotes if name_key(q.source) == wanted]


async def commit_store(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Step 3.1: everything into the store in one transaction (once per run)."""
    store, run_id = runtime.context.store, runtime.context.run_id or state.get("source", "")
    if commit_status(store, run_id) is None:
        plan, concepts, edges, _ = build_plan(state, runtime)
        check_paths(runtime.context.require_vault().writer, plan)
        crash_point("extraction.commit_store")
        with store.transaction() as conn:
            if commit_status(store, run_id) is None:  # checked again inside the transaction
                record_plan(conn, plan)
                _store_rows(conn, plan, concepts, edges)
    stored = load_plan(store, run_id)
    if stored is None:
        raise RuntimeError(f"run {run_id}: the store commit left no plan")
    report(
        "3.1",
        f"store: {len(stored.create)} concept(s), {len(stored.edit)} existing updated",
        concepts=len(stored.create),
        existing=len(stored.edit),
    )
    return {
        "commit": {
            "run_id": run_id,
            "create": [c.path for c in stored.create],
            "edit": [e.path for e in stored.edit],
        }
    }


async def write_vault(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Step 3.2: block ids, new notes, minimal edits (idempotent; repair finishes a failure)."""
    store, run_id = runtime.context.store, state["commit"]["run_id"]
    plan = load_plan(store, run_id)
    status = commit_status(store, run_id)
    if plan is None or status == "done":
        return {"written": []}
    if status == "abandoned":
        raise RuntimeError(
            f"this commit was abandoned and writes nothing: {_error_of(store, run_id)}"
        )
    try:
        plan = replan_taken_paths(store, runtime.context.require_vault().writer, plan)
        written = write_notes(
            runtime.context.require_vault().writer,
            plan,
            lambda msg, done, total: report("3.2", msg, done=done, total=total),
        )
    except Exception as exc:
        record_error(store, run_id, f"{type(exc).__name__}: {exc}")
        raise RuntimeError(
            f"writing the vault failed after the store commit ({type(exc).__name__}: {exc}); "
            "`noema repair` finishes it"
        ) from exc
    return {"written": written}


async def mark_source(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Step 3.3: processed_date on the source; the plan is done; the index refreshed."""
    store, run_id, vault = (
        runtime.context.store,
        state["commit"]["run_id"],
        runtime.context.require_vault(),
    )
    plan = load_plan(store, run_id)
    written = list(state.get("written", []))
    if plan is not None and commit_status(store, run_id) != "done":
        written += mark_processed(store, vault.writer, plan)
        touched = {plan.source, *(c.path for c in plan.create), *(e.path for e in plan.edit)}
        with contextlib.suppress(Exception):  # the index can always be rebuilt from the vault
            vault.reindex(*sorted(touched))
            if getattr(vault.index, "embed", None) is not None:
                await vault.index.embed_changed()
        finish_plan(store, run_id, written)
    written = sorted(set(written))
    report(
        "3.3",
        f"{state['source']} marked processed; {len(written)} file(s) written",
        written=len(written),
    )
    listing = "\n".join(f"- {p}" for p in written)
    return {
        "outcome": "committed",
        "written": written,
        "messages": [
            f"Committed. Files written:\n{listing}" if written else "Committed; no file changed."
        ],
    }


def _error_of(store: Store, run_id: str) -> str:
    row = store.query_one("SELECT error FROM extraction_commits WHERE run_id=?", (run_id,))
    return str(row[0]) if row and row[0] else "no reason recorded"


def written_notes(store: Store, run_id: str) -> list[str]:
    """The files a finished commit wrote (for the screen after a restart)."""
    row = store.query_one("SELECT written_json FROM extraction_commits WHERE run_id=?", (run_id,))
    return [] if row is None else list(json.loads(row[0]))
