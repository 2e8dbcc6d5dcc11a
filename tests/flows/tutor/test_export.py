"""A tutoring session exported to a Markdown file the user chooses."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest

from core.flows.tutor.export import ExportError, export_session

VALUES = {
    "topic_info": {"title": "Fracciones ½"},
    "study_plan": {"todo_list": [{"title": "Comparar", "status": "in_progress"}]},
    "conversation": [
        {
            "role": "tutor",
            "kind": "teaching",
            "content": "¿Qué es **mayor**?\n## no título",
            "timestamp": "2026-01-02T10:00:00",
        },
        {
            "role": "student",
            "kind": "answer",
            "content": "1/2\ncreo",
            "timestamp": "2026-01-02T10:01:00",
        },
    ],
}


def test_an_unfinished_session_is_exported_whole_with_where_it_stands(tmp_path: Path) -> None:
    written = export_session(VALUES, "s-1", tmp_path / "sesión")
    assert written == tmp_path / "sesión.md"
    note = frontmatter.loads(written.read_text(encoding="utf-8"))
    assert note["session_id"] == "s-1" and note["outcome"] == "in_progress"
    assert "Review: Comparar" in note.content and "needs another approach" not in note.content
    talk = note.content.split("## Conversation", 1)[1]
    assert "> ¿Qué es **mayor**?\n> \\## no título" in talk and "> 1/2\n> creo" in talk
    assert not list(tmp_path.glob(".noema-*"))  # no temporary file left
    assert written.stat().st_mode & 0o777 == 0o644  # readable as the user's other files


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "mine.md"
    target.write_text("my own notes", encoding="utf-8")
    with pytest.raises(ExportError, match="exists"):
        export_session(VALUES, "s-1", target)
    assert target.read_text(encoding="utf-8") == "my own notes"


def test_a_missing_folder_is_said_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="no folder"):
        export_session(VALUES, "s-1", tmp_path / "nope" / "x.md")


def test_inside_the_vault_the_vaults_writer_writes_it(tmp_path: Path) -> None:
    class Writer:
        def __init__(self) -> None:
            self.created: list[tuple[str, str]] = []

        def create(self, rel: str, text: str) -> str:
            self.created.append((rel, text))
            return "hash"

    class Vault:
        root = tmp_path
        writer = Writer()

    (tmp_path / "11 - Tutoring").mkdir()
    export_session(VALUES, "s-1", tmp_path / "11 - Tutoring" / "Export.md", Vault())
    [(rel, text)] = Vault.writer.created
    assert rel == "11 - Tutoring/Export.md" and "## Conversation" in text
