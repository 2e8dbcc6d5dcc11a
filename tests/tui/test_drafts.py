"""Drafts (tui.drafts): kept in a file, written off the caller's thread (a keystroke on the
event loop waited on the file before), every change there once the writer has caught up."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from tui import drafts as drafts_module
from tui.drafts import Drafts


def test_typing_never_writes_the_file_on_the_typing_thread(tmp_path: Path, monkeypatch) -> None:
    written: list[tuple[str, dict]] = []
    replace = os.replace

    def recorded(source, target):
        written.append((threading.current_thread().name, json.loads(Path(source).read_text())))
        return replace(source, target)

    monkeypatch.setattr(drafts_module.os, "replace", recorded)
    drafts = Drafts(tmp_path / "data" / "drafts.json")
    typed = ""
    for key in "¿Qué es 1/2? 🍕 Дробь":
        typed += key
        drafts.keep("tutor.answer:séance", typed)
    drafts.keep("extraction.feedback:run-1", "une los dos conceptos")
    drafts.discard("extraction.feedback:run-1")
    deadline = time.monotonic() + 10
    while not (written and written[-1][1] == {"tutor.answer:séance": typed}):
        assert time.monotonic() < deadline, written
        time.sleep(0.01)
    assert written and all(name != threading.current_thread().name for name, _ in written)
    assert len(written) < len(typed)  # changes made before the writer got to them: one write
    kept = json.loads((tmp_path / "data" / "drafts.json").read_text(encoding="utf-8"))
    assert kept == written[-1][1] == {"tutor.answer:séance": "¿Qué es 1/2? 🍕 Дробь"}
    assert Drafts(tmp_path / "data" / "drafts.json").get("tutor.answer:séance") == typed


def test_flush_waits_until_the_file_holds_every_change(tmp_path: Path) -> None:
    drafts = Drafts(tmp_path / "drafts.json")
    for n in range(50):
        drafts.keep(f"tutor.answer:{n}", f"respuesta {n} ✓")
    drafts.flush()
    kept = json.loads((tmp_path / "drafts.json").read_text(encoding="utf-8"))
    assert kept == {f"tutor.answer:{n}": f"respuesta {n} ✓" for n in range(50)}
