"""A committed extraction whose planned note path a note of the user's took meanwhile.

The first commit picks a free path for every new concept (`Title.md`, else `Title 2.md`...).
When the vault half of the commit runs later (after a crash, by `noema repair`), the user
may have written a note at one of those paths. Such a path is planned again the way the first
commit would have planned it, and everything that names the note follows: the plan itself
(stored again before anything is written, so a second crash resumes the same plan), the
names the Conexiones links use, the links inside the plan's other new notes (also those a
crashed run already wrote) and the concept's row in the index. The user's note is not touched.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from core.store.runs import now_iso
from vault.links import note_name, rewrite_links
from vault.note import parse_note
from vault.writer import VaultWriter

if TYPE_CHECKING:  # core.repair imports this module
    from core.repair import NoteCreate, VaultPlan
    from core.store import Store


def replan_taken_paths(store: Store, writer: VaultWriter, plan: VaultPlan) -> VaultPlan:
    """The plan with a free path for every new note whose path another note took."""
    moved = _new_paths(writer, plan)
    if not moved:
        return plan
    creates = [
        item.model_copy(
            update={
                "path": moved.get(item.path, item.path),
                "text": _relinked(item.text, moved, item.path),
            }
        )
        for item in plan.create
    ]
    names = dict(plan.names)
    for item in plan.create:
        if item.path in moved:
            names[item.entity_id] = note_name(moved[item.path])
    replanned = plan.model_copy(update={"create": creates, "names": names})
    _store(store, plan, replanned, moved)
    _relink_written(writer, replanned, moved)
    return replanned


def _is_taken(writer: VaultWriter, item: NoteCreate) -> bool:
    """A file at the path that is not this plan's note (another entity_id, or none)."""
    if writer.current_hash(item.path) is None:
        return False
    return str(writer.read(item.path).frontmatter.get("entity_id")) != item.entity_id


def _title_of(item: NoteCreate) -> str:
    """The concept's title: the note's H1 (what the first commit named the file after)."""
    body = parse_note(item.path, item.text.encode("utf-8")).body
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return PurePosixPath(item.path).stem


def _new_paths(writer: VaultWriter, plan: VaultPlan) -> dict[str, str]:
    """Old path -> new free path for every taken one (distinct from the plan's other paths)."""
    planned = {item.path.lower() for item in plan.create}
    moved: dict[str, str] = {}
    for item in plan.create:
        if not _is_taken(writer, item):
            continue
        folder, title = str(PurePosixPath(item.path).parent), _title_of(item)
        path, n = writer.unique_path(folder, title), 1
        while path.lower() in planned:
            n += 1
            path = writer.unique_path(folder, f"{title} {n}")
        planned.add(path.lower())
        moved[item.path] = path
    return moved


def _relinked(text: str, moved: dict[str, str], rel: str) -> str:
    for old, new in moved.items():
        text, _edits = rewrite_links(text, old, new, rel)
    return text


def _store(store: Store, old: VaultPlan, new: VaultPlan, moved: dict[str, str]) -> None:
    """The new plan and the concepts' new paths, in one transaction, before any write."""
    ids = {item.path: item.entity_id for item in old.create}
    with store.transaction() as conn:
        conn.execute(
            "UPDATE extraction_commits SET plan_json=?, updated_at=? WHERE run_id=?",
            (new.model_dump_json(), now_iso(), new.run_id),
        )
        for old_path, new_path in moved.items():
            title = note_name(new_path)
            conn.execute(
                "UPDATE concepts SET path=?, title=? WHERE entity_id=?",
                (new_path, title, ids[old_path]),
            )
            conn.execute(
                "UPDATE notes SET path=?, title=? WHERE path=? AND hash='pending'",
                (new_path, title, old_path),
            )


def _relink_written(writer: VaultWriter, plan: VaultPlan, moved: dict[str, str]) -> None:
    """New notes written before the crash that link to a moved note point at its new path."""
    for item in plan.create:
        if writer.current_hash(item.path) is None or _is_taken(writer, item):
            continue
        note = writer.read(item.path)
        text = _relinked(note.text, moved, item.path)
        if text != note.text:
            writer.write(item.path, text, expected_hash=note.hash)
