"""The user saves a note while `noema merges apply` runs: the apply stops at that note, and the
CLI offers two ways to a consistent vault, each without hand repair:
`merges apply --resume` plans again over the edit, `merges undo` rolls back what was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.durability.harness import REVIEW, Stall, Workspace, prepare_merges

LATER = "08 - Ideas/Práctica intercalada.md"
"""Rewritten by the plan's 5th step (its link to a variant)."""
VARIANT = "08 - Ideas/ZDP.md"
"""Only moved into the archive, after every rewrite; its text merges into its canonical."""
ADDED = "\nMi nota: intercalar álgebra y geometría ✍️ — 交错练习\n"


def edit(workspace: Workspace, rel: str) -> None:
    path = workspace.vault / rel
    path.write_text(path.read_text(encoding="utf-8") + ADDED, encoding="utf-8")


@pytest.fixture
def template(tmp_path: Path) -> Workspace:
    return prepare_merges(tmp_path / "template")


def interrupted_by_an_edit(template: Workspace, home: Path, rel: str) -> Workspace:
    """Apply, and save `rel` in the middle of it (after the first note was rewritten)."""
    work = template.clone(home)
    stall = Stall(home / "stall")
    apply = work.start("merges", "apply", REVIEW, "--yes", **stall.env("write.renamed"))
    stall.wait_reached("write.renamed", apply)
    edit(work, rel)
    stall.go("write.renamed")
    result = apply.finish()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "apply interrupted at step" in result.stderr and rel in result.stderr
    return work


def edited_first(template: Workspace, home: Path, rel: str) -> dict[str, bytes]:
    """The vault of an apply planned after the same edit (what resuming must reach)."""
    clean = template.clone(home)
    edit(clean, rel)
    assert clean.cli("merges", "apply", REVIEW, "--yes").returncode == 0
    return clean.files()


@pytest.mark.parametrize("rel", [LATER, VARIANT])
def test_resume_plans_again_over_the_users_edit(template, tmp_path: Path, rel: str) -> None:
    work = interrupted_by_an_edit(template, tmp_path / "work", rel)
    resumed = work.cli("merges", "apply", REVIEW, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"changed since the plan: {rel}" in resumed.stdout
    assert work.files() == edited_first(template, tmp_path / "clean", rel)
    kept = f"99 - Archive/{rel}" if rel == VARIANT else rel  # an edited variant is archived
    assert ADDED in (work.vault / kept).read_text(encoding="utf-8")
    assert work.query("SELECT status FROM normalization_reviews") == [("applied",)]
    assert work.cli("merges", "list").stdout.count("UNFINISHED") == 0


def test_undo_rolls_back_exactly_what_was_written(template, tmp_path: Path) -> None:
    original = template.files()
    work = interrupted_by_an_edit(template, tmp_path / "work", LATER)
    undone = work.cli("merges", "undo", REVIEW)
    assert undone.returncode == 0, undone.stderr
    expected = dict(original)
    expected[LATER] = original[LATER] + ADDED.encode("utf-8")  # the user's edit stays
    assert work.files() == expected
    assert work.folders() == template.folders()
    assert work.query("SELECT status FROM normalization_reviews") == [("pending",)]
