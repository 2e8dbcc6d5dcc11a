"""The watcher on the real file system: editor save styles, moves, own writes, bursts."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from vault.layout import VaultLayout
from vault.note import content_hash
from vault.watcher import VaultEvent, VaultWatcher
from vault.writer import VaultWriter

DEBOUNCE = 0.25


class Recorder:
    def __init__(self) -> None:
        self.events: list[VaultEvent] = []
        self.lock = threading.Lock()

    def __call__(self, events: list[VaultEvent]) -> None:
        with self.lock:
            self.events.extend(events)

    def wait_for(self, n: int, timeout: float = 10.0) -> list[VaultEvent]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.events) >= n:
                    break
            time.sleep(0.05)
        time.sleep(DEBOUNCE * 4)  # anything extra would have arrived by now
        with self.lock:
            return list(self.events)


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "A.md").write_text("original\n")
    return root


def start(vault: Path, polling: bool = False) -> tuple[VaultWatcher, Recorder]:
    recorder = Recorder()
    known = {"notes/A.md": content_hash(b"original\n")}
    watcher = VaultWatcher(
        vault,
        recorder,
        VaultLayout(),
        debounce_s=DEBOUNCE,
        polling=polling,
        poll_interval_s=0.1,
        known_hashes=known,
    )
    watcher.start()
    time.sleep(0.2)
    return watcher, recorder


def test_atomic_rename_save_is_one_modification(vault):
    watcher, recorder = start(vault)
    try:
        tmp = vault / "notes" / ".A.md.tmp1234"
        tmp.write_text("edited\n")
        os.replace(tmp, vault / "notes" / "A.md")
        events = recorder.wait_for(1)
    finally:
        watcher.stop()
    assert [(e.kind, e.path) for e in events] == [("modified", "notes/A.md")]
    assert events[0].hash == content_hash(b"edited\n")


def test_vim_style_save_with_backup_file(vault):
    watcher, recorder = start(vault)
    try:
        a = vault / "notes" / "A.md"
        (vault / "notes" / "4913").write_text("")  # vim's permission probe
        (vault / "notes" / "4913").unlink()
        os.rename(a, vault / "notes" / "A.md~")  # backup
        a.write_text("vim edit\n")
        (vault / "notes" / ".A.md.swp").write_bytes(b"\x00swap")
        (vault / "notes" / "A.md~").unlink()
        events = recorder.wait_for(1)
    finally:
        watcher.stop()
    assert [(e.kind, e.path) for e in events] == [("modified", "notes/A.md")]


def test_duplicate_writes_and_own_writes_do_nothing(vault):
    watcher, recorder = start(vault)
    writer = VaultWriter(vault, on_write=watcher.expect_write)
    try:
        (vault / "notes" / "A.md").write_text("original\n")  # same bytes again
        writer.write("notes/A.md", "by noema\n", expected_hash=content_hash(b"original\n"))
        writer.create("notes/B.md", "new by noema\n")
        events = recorder.wait_for(1, timeout=2.0)
    finally:
        watcher.stop()
    assert events == []


def test_a_moved_note_is_one_move_event(vault):
    watcher, recorder = start(vault)
    try:
        (vault / "notes" / "sub").mkdir()
        os.rename(vault / "notes" / "A.md", vault / "notes" / "sub" / "Renamed.md")
        events = recorder.wait_for(1)
    finally:
        watcher.stop()
    assert [(e.kind, e.path, e.old_path) for e in events] == [
        ("moved", "notes/sub/Renamed.md", "notes/A.md")
    ]


def test_bursts_collapse_per_path_and_deletes_are_reported(vault):
    watcher, recorder = start(vault)
    try:
        for i in range(20):
            (vault / "notes" / "A.md").write_text(f"version {i}\n")
        (vault / "notes" / "Gone.md").write_text("short-lived\n")
        events = recorder.wait_for(2)
        (vault / "notes" / "Gone.md").unlink()
        events = recorder.wait_for(3)
    finally:
        watcher.stop()
    assert [(e.kind, e.path) for e in events] == [
        ("modified", "notes/A.md"),
        ("created", "notes/Gone.md"),
        ("deleted", "notes/Gone.md"),
    ]
    assert events[0].hash == content_hash(b"version 19\n")


def test_excluded_and_non_note_files_are_ignored(vault):
    watcher, recorder = start(vault)
    try:
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian" / "workspace.md").write_text("x")
        (vault / "notes" / "image.png").write_bytes(b"png")
        (vault / "Templates").mkdir()
        (vault / "Templates" / "T.md").write_text("t")
        events = recorder.wait_for(1, timeout=2.0)
    finally:
        watcher.stop()
    assert events == []


def test_polling_observer(vault):
    watcher, recorder = start(vault, polling=True)
    try:
        time.sleep(0.3)
        (vault / "notes" / "P.md").write_text("polled\n")
        events = recorder.wait_for(1)
    finally:
        watcher.stop()
    assert [(e.kind, e.path) for e in events] == [("created", "notes/P.md")]
    assert "stopped" in watcher.status


def test_a_renamed_folder_moves_its_notes(vault):
    (vault / "notes" / "B.md").write_text("bee\n")
    watcher, recorder = start(vault)
    try:
        os.rename(vault / "notes", vault / "renamed")
        events = recorder.wait_for(1)
    finally:
        watcher.stop()
    moves = sorted((e.kind, e.path, e.old_path) for e in events)
    assert ("moved", "renamed/A.md", "notes/A.md") in moves
    assert ("deleted", "notes/A.md", None) not in moves
    assert {e.path for e in events} == {"renamed/A.md", "renamed/B.md"}
