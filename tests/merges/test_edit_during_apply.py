"""A note changes while an apply runs: undo rolls back exactly the written steps, resume plans
again over the edit, or (when a note noema already wrote was edited too) skips the changed
notes; the journal and the review always end in a state the user can act on."""

from __future__ import annotations

import pytest

from core.merges.journal import ApplyInterrupted
from tests.merges.merge_vault import MergeVault, snapshot
from vault.writer import ConflictError

IDEAS = "08 - Ideas"
WRITTEN_FIRST = f"{IDEAS}/Hábitos atómicos.md"
LATER = f"{IDEAS}/Práctica intercalada.md"
ADDED = "\nMi nota (editada mientras noema escribía) 🧠\n"


def append(mv: MergeVault, rel: str) -> None:
    path = mv.root / rel
    path.write_text(path.read_text(encoding="utf-8") + ADDED, encoding="utf-8")


def apply_with_an_edit_after_the_first_write(mv: MergeVault, rel: str) -> None:
    """The user saves `rel` in Obsidian right after noema rewrote its first note."""
    plan = mv.merges.plan(mv.review())
    assert plan.writes[0].path == WRITTEN_FIRST and rel in [w.path for w in plan.writes[1:]]
    real, count = mv.writer.write, {"n": 0}

    def write(path, text, *, expected_hash):
        written = real(path, text, expected_hash=expected_hash)
        count["n"] += 1
        if count["n"] == 1:
            append(mv, rel)
        return written

    mv.writer.write = write
    with pytest.raises(ApplyInterrupted, match="changed on disk"):
        mv.merges.apply(plan)
    mv.writer.write = real


def test_undo_rolls_back_the_written_steps_and_keeps_the_edited_note(mv) -> None:
    files = snapshot(mv.root)
    apply_with_an_edit_after_the_first_write(mv, LATER)
    assert snapshot(mv.root)[WRITTEN_FIRST] != files[WRITTEN_FIRST]  # half-merged
    mv.merges.undo("rev1")
    files[LATER] += ADDED.encode("utf-8")
    assert snapshot(mv.root) == files
    assert mv.merges.review("rev1").status == "pending" and mv.merges.unfinished() == []


def test_resume_plans_again_over_the_edit(mv, tmp_path) -> None:
    apply_with_an_edit_after_the_first_write(mv, LATER)
    resumed = mv.merges.resume("rev1")
    assert resumed.replanned == [LATER] and resumed.skipped == []
    clean = MergeVault(tmp_path / "clean")
    append(clean, LATER)
    clean.index.sync_files()
    clean.merges.apply(clean.merges.plan(clean.review()))
    assert snapshot(mv.root) == snapshot(clean.root)
    assert mv.merges.review("rev1").status == "applied" and mv.merges.unfinished() == []


def test_resume_skips_the_changed_notes_when_a_written_one_was_edited_too(mv, tmp_path) -> None:
    apply_with_an_edit_after_the_first_write(mv, LATER)
    append(mv, WRITTEN_FIRST)  # and later the user edits the note noema had merged into
    edited = {rel: (mv.root / rel).read_bytes() for rel in (LATER, WRITTEN_FIRST)}
    resumed = mv.merges.resume("rev1")
    assert resumed.skipped == [LATER] and resumed.replanned == []
    after = snapshot(mv.root)
    assert {rel: after[rel] for rel in edited} == edited  # both kept exactly as the user left them
    clean = MergeVault(tmp_path / "clean")
    clean.merges.apply(clean.merges.plan(clean.review()))
    reference = snapshot(clean.root)
    assert {k: v for k, v in after.items() if k not in edited} == {
        k: v for k, v in reference.items() if k not in edited
    }  # every other step done as planned: the archive moves too
    assert mv.merges.review("rev1").status == "applied" and mv.merges.unfinished() == []
    row = mv.store.query_one("SELECT status, error FROM merge_journals")
    assert row[0] == "applied" and LATER in row[1]
    with pytest.raises(ConflictError, match="Hábitos atómicos.md changed after the merge"):
        mv.merges.undo("rev1")  # would lose the user's edit of a note noema wrote
    assert snapshot(mv.root) == after
