"""Vault-wide link rewriting: dry run lists the changes; applying changes only those bytes."""

from __future__ import annotations

import pytest

from vault.layout import VaultLayout
from vault.rewrite import apply_rewrite, plan_rewrite
from vault.writer import ConflictError, VaultWriter


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "08 - Ideas").mkdir(parents=True)
    (root / "08 - Ideas" / "Hábito atómico.md").write_text("---\nentity_id: x\n---\nold\n")
    (root / "08 - Ideas" / "Hábitos atómicos.md").write_text("---\nentity_id: y\n---\nkeep\n")
    (root / "a.md").write_bytes(
        b'---\r\nup: "[[H\xc3\xa1bito at\xc3\xb3mico]]"\r\n---\r\n'
        b"See [[H\xc3\xa1bito at\xc3\xb3mico#Uso|uso]] and [[H\xc3\xa1bitos at\xc3\xb3micos]].\r\n"
    )
    (root / "b.md").write_text("[x](H%C3%A1bito%20at%C3%B3mico.md) ![[Hábito atómico]]\n")
    (root / "c.md").write_text("no links to it\n")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "x.md").write_text("[[Hábito atómico]]")
    return root


def test_dry_run_then_apply(vault):
    old, new = "08 - Ideas/Hábito atómico.md", "08 - Ideas/Hábitos atómicos.md"
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    plan = plan_rewrite(vault, VaultLayout(), old, new)
    assert [(c.path, c.line, c.before, c.after) for c in plan.changes] == [
        ("a.md", 2, "[[Hábito atómico]]", "[[Hábitos atómicos|Hábito atómico]]"),
        ("a.md", 4, "[[Hábito atómico#Uso|uso]]", "[[Hábitos atómicos#Uso|uso]]"),
        ("b.md", 1, "[x](H%C3%A1bito%20at%C3%B3mico.md)", "[x](H%C3%A1bitos%20at%C3%B3micos.md)"),
        ("b.md", 1, "![[Hábito atómico]]", "![[Hábitos atómicos]]"),
    ]
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before  # a dry run writes nothing
    written = apply_rewrite(VaultWriter(vault), plan)
    assert written == ["a.md", "b.md"]
    a = (vault / "a.md").read_bytes()
    assert a == before[vault / "a.md"].replace(
        "[[Hábito atómico]]".encode(), "[[Hábitos atómicos|Hábito atómico]]".encode()
    ).replace("[[Hábito atómico#Uso|uso]]".encode(), "[[Hábitos atómicos#Uso|uso]]".encode())
    assert b"\r\n" in a and a.count(b"\r\n") == before[vault / "a.md"].count(b"\r\n")
    assert (vault / ".obsidian" / "x.md").read_text() == "[[Hábito atómico]]"
    assert (vault / "c.md").read_bytes() == before[vault / "c.md"]


def test_apply_refuses_when_a_note_changed_after_planning(vault):
    plan = plan_rewrite(vault, VaultLayout(), "08 - Ideas/Hábito atómico.md", "x/New.md")
    (vault / "b.md").write_text("edited by the user [[Hábito atómico]]\n")
    a_before = (vault / "a.md").read_bytes()
    with pytest.raises(ConflictError, match="b.md"):
        apply_rewrite(VaultWriter(vault), plan)
    assert (vault / "a.md").read_bytes() == a_before  # nothing written at all


def test_links_relative_to_the_note_are_resolved_and_rewritten(tmp_path):
    root = tmp_path / "vault"
    (root / "08 - Ideas").mkdir(parents=True)
    (root / "03 - Sources").mkdir()
    (root / "08 - Ideas" / "Old.md").write_text("old\n")
    (root / "08 - Ideas" / "Other.md").write_text("[near](./Old.md#Part) [[Old]]\n")
    (root / "03 - Sources" / "Book.md").write_text(
        "[far](../08%20-%20Ideas/Old.md) [wrong](../Elsewhere/Old.md)\n"
    )
    plan = plan_rewrite(root, VaultLayout(), "08 - Ideas/Old.md", "08 - Ideas/New.md")
    assert sorted((c.path, c.before, c.after) for c in plan.changes) == [
        (
            "03 - Sources/Book.md",
            "[far](../08%20-%20Ideas/Old.md)",
            "[far](../08%20-%20Ideas/New.md)",
        ),
        ("08 - Ideas/Other.md", "[[Old]]", "[[New|Old]]"),
        ("08 - Ideas/Other.md", "[near](./Old.md#Part)", "[near](./New.md#Part)"),
    ]


def test_a_rename_finds_links_to_an_nfd_file_and_markdown_links_without_md(tmp_path):
    """macOS writes `Café.md` in NFD; links are typed in NFC. Obsidian's help writes Markdown
    links without `.md`. Both must follow a rename."""
    import unicodedata

    root = tmp_path / "vault"
    (root / "08 - Ideas").mkdir(parents=True)
    nfd = unicodedata.normalize("NFD", "Café")
    (root / "08 - Ideas" / f"{nfd}.md").write_text("# Café\n", encoding="utf-8")
    (root / "Hub.md").write_text("[[Café]] [c](Caf%C3%A9) [same](Café.md)\n", encoding="utf-8")
    plan = plan_rewrite(root, VaultLayout(), f"08 - Ideas/{nfd}.md", "08 - Ideas/Café crème.md")
    assert plan.texts["Hub.md"][1] == (
        "[[Café crème|Café]] [c](Caf%C3%A9%20cr%C3%A8me) [same](Café%20crème.md)\n"
    )
