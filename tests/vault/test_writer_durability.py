"""The writer under saves that land mid-write and processes killed mid-write: the user's
version is kept, temporary files stay out of Obsidian's sight and their leftovers go away."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.durability.harness import KILLED, REPO, Stall
from vault.note import content_hash
from vault.writer import ConflictError, VaultWriter

TEMP_DIR = ".noema-tmp"
"""Where temporary files must go: a dot-folder, which Obsidian neither lists nor indexes."""
NOTE = "notes/Idea.md"
OLD = "---\ntags: [x]\n---\n# Idea\n\nold text\n"
USERS = "---\ntags: [x]\n---\n# Idea\n\nold text\nthe user's line, saved in Obsidian 😊\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / NOTE).write_text(OLD, encoding="utf-8")
    return root


def save_during_temp_write(monkeypatch, target: Path, text: str) -> list[Path]:
    """The user's editor saves `target` right after noema fsynced its temporary file (between
    noema's first check and its rename). Returns the temporary files the vault held then."""
    real, seen = os.fsync, []
    vault = target.parents[1]

    def fsync(fd: int) -> None:
        real(fd)
        if not seen:
            seen.extend(p for p in vault.rglob("*noema*") if p.is_file())
            target.write_text(text, encoding="utf-8")

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


def test_a_save_landing_between_the_check_and_the_rename_is_kept(vault, monkeypatch) -> None:
    writer = VaultWriter(vault)
    note = writer.read(NOTE)
    save_during_temp_write(monkeypatch, vault / NOTE, USERS)
    with pytest.raises(ConflictError, match="changed on disk while noema was writing it"):
        writer.write(NOTE, OLD + "noema's line\n", expected_hash=note.hash)
    assert (vault / NOTE).read_text(encoding="utf-8") == USERS
    assert sorted(p.name for p in vault.rglob("*")) == ["Idea.md", "notes"]


def test_a_note_that_appears_while_noema_creates_it_is_not_overwritten(vault, monkeypatch) -> None:
    writer = VaultWriter(vault)
    save_during_temp_write(monkeypatch, vault / "notes/New.md", USERS)
    with pytest.raises(ConflictError, match="appeared while noema was writing it"):
        writer.create("notes/New.md", "# New\n")
    assert (vault / "notes/New.md").read_text(encoding="utf-8") == USERS


def test_temporary_files_are_hidden_from_obsidian_and_leave_no_trace(vault, monkeypatch) -> None:
    writer = VaultWriter(vault)
    seen = save_during_temp_write(monkeypatch, vault / "notes/unrelated.md", "x")
    writer.write(NOTE, USERS, expected_hash=content_hash(OLD.encode()))
    assert len(seen) == 1
    temp = seen[0]
    assert temp.parent == vault / TEMP_DIR  # one dot-folder: Obsidian neither lists nor indexes it
    assert temp.name.startswith(".") and TEMP_DIR.startswith(".")
    assert (vault / NOTE).read_text(encoding="utf-8") == USERS
    assert not (vault / TEMP_DIR).exists()
    assert sorted(p.name for p in vault.rglob("*")) == ["Idea.md", "notes", "unrelated.md"]


WRITE = """
import sys
from vault.writer import VaultWriter
writer = VaultWriter(sys.argv[1])
note = writer.read("notes/Idea.md")
writer.write("notes/Idea.md", "# Idea\\n\\nnew text\\n", expected_hash=note.hash)
"""


def write_in_a_process(vault: Path, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITE, str(vault)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
    )


def test_kill_9_mid_write_leaves_the_note_whole_and_repair_removes_the_leftover(vault) -> None:
    from vault.tempfiles import locked_temp

    legacy = vault / "notes" / ".noema-k3j9x_2a.tmp"  # what a noema before this one left
    legacy.write_text(OLD, encoding="utf-8")
    users = [vault / "notes" / ".noema-notes.md", vault / "notes" / "noema-1.tmp"]
    for path in users:
        path.write_text("mine", encoding="utf-8")
    killed = write_in_a_process(vault, NOEMA_CRASH_AT="1")  # after the temporary file is written
    assert killed.wait(60) == KILLED
    leftovers = list((vault / TEMP_DIR).iterdir())
    assert len(leftovers) == 1 and leftovers[0].name.startswith(".noema-")
    assert (vault / NOTE).read_text(encoding="utf-8") == OLD  # the old note, whole
    writer = VaultWriter(vault)
    with locked_temp(vault / TEMP_DIR, b"being written", None) as held:
        removed = writer.remove_temp_leftovers()
        assert held.exists()  # a live writer's file is never touched
    assert removed == sorted([f"{TEMP_DIR}/{leftovers[0].name}", "notes/.noema-k3j9x_2a.tmp"])
    assert not (vault / TEMP_DIR).exists()
    assert all(path.read_text(encoding="utf-8") == "mine" for path in users)


def test_a_temporary_file_another_live_process_is_writing_is_kept(vault, tmp_path) -> None:
    stall = Stall(tmp_path / "stall")
    writing = write_in_a_process(vault, **stall.env("write.temp_written"))
    try:
        while not stall.reached("write.temp_written"):
            assert writing.poll() is None
            time.sleep(0.05)
        assert VaultWriter(vault).remove_temp_leftovers() == []
        assert len(list((vault / TEMP_DIR).iterdir())) == 1
    finally:
        stall.go("write.temp_written")
        assert writing.wait(60) == 0
    assert (vault / NOTE).read_text(encoding="utf-8") == "# Idea\n\nnew text\n"
    assert not (vault / TEMP_DIR).exists()
