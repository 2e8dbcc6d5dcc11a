"""An extraction commit whose planned note path a note of the user's took after a crash:
repair plans the path again (`Title 2.md`, as the first commit does) and finishes."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from core.repair import NoteCreate, VaultPlan
from core.store import Store
from tests.durability.harness import prepare_extraction
from vault.writer import VaultWriter

IDEAS = "08 - Ideas"
USERS_NOTE = "# Efecto del espaciado\n\nMis apuntes: repasar a los 1, 3 y 7 días. 📅 間隔反復\n"


def test_repair_replans_a_path_a_users_note_took_after_the_crash(tmp_path: Path) -> None:
    workspace, run_id = prepare_extraction(tmp_path / "w")
    crashed = workspace.drive("crash", run_id)  # dies right after the store commit
    assert crashed.returncode == 3, crashed.stderr
    taken = workspace.vault / IDEAS / "Efecto del espaciado.md"
    assert not taken.exists()
    taken.write_text(USERS_NOTE, encoding="utf-8")  # the user writes a note of that name

    repaired = workspace.cli("repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "1 commit(s) finished" in repaired.stdout
    assert taken.read_text(encoding="utf-8") == USERS_NOTE  # the user's note is untouched
    ours = frontmatter.loads((workspace.vault / IDEAS / "Efecto del espaciado 2.md").read_text())
    assert ours.content.startswith("# Efecto del espaciado\n")
    entity = ours["entity_id"]
    # the existing note the commit relates to (the scripted model picks the first concept it
    # is offered) links to the note noema wrote, not the user's
    related = [
        text
        for text in (
            note.read_text(encoding="utf-8") for note in (workspace.vault / IDEAS).iterdir()
        )
        if "HAS_PART: [[Efecto del espaciado" in text
    ]
    assert related, "no existing note got the commit's relation"
    assert all("HAS_PART: [[Efecto del espaciado 2]]" in text for text in related)
    assert workspace.query("SELECT path FROM concepts WHERE entity_id=?", (entity,)) == [
        (f"{IDEAS}/Efecto del espaciado 2.md",)
    ]
    assert workspace.query("SELECT status FROM extraction_commits") == [("done",)]
    assert workspace.query("SELECT status FROM runs") == [("done",)]
    again = workspace.cli("repair")
    assert again.stdout.strip() == "nothing to repair"


def test_new_notes_written_before_the_crash_follow_the_replanned_path(tmp_path: Path) -> None:
    from core.taken_paths import replan_taken_paths

    root = tmp_path / "vault"
    (root / IDEAS).mkdir(parents=True)
    store = Store(tmp_path / "store.sqlite3")
    writer = VaultWriter(root)
    a_text = "---\nentity_id: a-1\n---\n# Ἀρετή\n\n## Conexiones\n- RELATES_TO: [[Ορθός λόγος]]\n"
    b_text = "---\nentity_id: b-2\n---\n# Ορθός λόγος\n\n## Conexiones\n- RELATES_TO: [[Ἀρετή]]\n"
    plan = VaultPlan(
        run_id="r",
        source="s.md",
        source_name="s",
        create=[
            NoteCreate(path=f"{IDEAS}/Ἀρετή.md", entity_id="a-1", text=a_text),
            NoteCreate(path=f"{IDEAS}/Ορθός λόγος.md", entity_id="b-2", text=b_text),
        ],
        names={"a-1": "Ἀρετή", "b-2": "Ορθός λόγος"},
    )
    writer.create(f"{IDEAS}/Ἀρετή.md", a_text)  # written before the crash
    (root / IDEAS / "Ορθός λόγος.md").write_text("mine\n", encoding="utf-8")  # then taken

    replanned = replan_taken_paths(store, writer, plan)
    assert [c.path for c in replanned.create] == [f"{IDEAS}/Ἀρετή.md", f"{IDEAS}/Ορθός λόγος 2.md"]
    assert replanned.names["b-2"] == "Ορθός λόγος 2"
    written = (root / IDEAS / "Ἀρετή.md").read_text(encoding="utf-8")
    assert "[[Ορθός λόγος 2|Ορθός λόγος]]" in written  # the note on disk follows
    assert (root / IDEAS / "Ορθός λόγος.md").read_text(encoding="utf-8") == "mine\n"
    assert replan_taken_paths(store, writer, replanned) == replanned  # nothing taken now
