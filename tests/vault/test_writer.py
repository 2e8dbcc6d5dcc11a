"""The one writer: containment, atomic writes, conflicts, archive-not-delete, minimal edits."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vault.frontmatter_edit import REMOVE, dump_field, set_fields
from vault.layout import VaultLayout
from vault.note import content_hash, parse_note
from vault.writer import (
    ConflictError,
    PathEscapeError,
    VaultWriteError,
    VaultWriter,
    safe_filename,
)


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    return root


@pytest.mark.parametrize(
    "path",
    [
        "../outside.md",
        "notes/../../outside.md",
        "/etc/passwd",
        "notes\\..\\..\\x.md",
        "..\\x.md",
        "C:/x.md",
        "~/x.md",
        "",
        "a\x00b.md",
    ],
)
def test_paths_outside_the_vault_are_refused(vault, path):
    writer = VaultWriter(vault)
    with pytest.raises(PathEscapeError):
        writer.create(path, "x")
    assert not (vault.parent / "outside.md").exists()


def test_symlink_escape_is_refused(vault, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (vault / "link").symlink_to(outside, target_is_directory=True)
    writer = VaultWriter(vault)
    with pytest.raises(PathEscapeError):
        writer.create("link/evil.md", "x")
    assert list(outside.iterdir()) == []


def test_create_write_and_conflict(vault):
    seen = []
    writer = VaultWriter(vault, on_write=lambda rel, h: seen.append((rel, h)))
    first = writer.create("notes/A.md", "one\n")
    assert (vault / "notes/A.md").read_text() == "one\n"
    with pytest.raises(VaultWriteError):
        writer.create("notes/A.md", "again\n")
    (vault / "notes/A.md").write_text("user edit\n")  # the user edits meanwhile
    with pytest.raises(ConflictError, match="changed on disk"):
        writer.write("notes/A.md", "two\n", expected_hash=first)
    assert (vault / "notes/A.md").read_text() == "user edit\n"
    current = content_hash(b"user edit\n")
    writer.write("notes/A.md", "two\n", expected_hash=current)
    assert (vault / "notes/A.md").read_text() == "two\n"
    assert seen == [("notes/A.md", first), ("notes/A.md", content_hash(b"two\n"))]
    assert not [p for p in (vault / "notes").iterdir() if p.name.startswith(".noema-")]


def test_write_keeps_file_mode(vault):
    path = vault / "notes/A.md"
    path.write_text("x")
    os.chmod(path, 0o600)
    VaultWriter(vault).write("notes/A.md", "y", expected_hash=content_hash(b"x"))
    assert (path.stat().st_mode & 0o777) == 0o600


def test_archive_moves_instead_of_deleting(vault):
    writer = VaultWriter(vault, VaultLayout(archive="99 - Archive"))
    (vault / "notes/Old.md").write_text("keep me")
    (vault / "99 - Archive/notes").mkdir(parents=True)
    (vault / "99 - Archive/notes/Old.md").write_text("an older archived one")
    target = writer.archive("notes/Old.md", expected_hash=content_hash(b"keep me"))
    assert target == "99 - Archive/notes/Old 2.md"
    assert not (vault / "notes/Old.md").exists()
    assert (vault / target).read_text() == "keep me"
    assert (vault / "99 - Archive/notes/Old.md").read_text() == "an older archived one"
    with pytest.raises(VaultWriteError):
        writer.archive(target)


def test_archive_refuses_on_conflict(vault):
    (vault / "notes/Old.md").write_text("edited")
    with pytest.raises(ConflictError):
        VaultWriter(vault).archive("notes/Old.md", expected_hash=content_hash(b"original"))
    assert (vault / "notes/Old.md").exists()


def test_safe_unique_file_names(vault):
    assert safe_filename('What/is: "this"? <A|B> #tag ^x [[y]]') == "What is this A B tag x y"
    assert safe_filename("  ...  ") == "Untitled"
    assert safe_filename("CON") == "Untitled CON"
    assert len(safe_filename("x" * 500)) <= 120
    writer = VaultWriter(vault)
    writer.create("notes/Idea.md", "")
    (vault / "notes/idea 2.md").write_text("")
    assert writer.unique_path("notes", "Idea") == "notes/Idea 3.md"
    assert writer.unique_path("notes", "../../etc/passwd") == "notes/etc passwd.md"


def test_file_names_fit_the_file_system_and_drop_invisible_characters(vault):
    wide = "概念" * 100  # 200 characters, 600 bytes in UTF-8
    name = safe_filename(wide)
    assert len(name.encode("utf-8")) <= 200 and wide.startswith(name)
    rel = VaultWriter(vault).unique_path("notes", wide)
    VaultWriter(vault).create(rel, "x")  # no "File name too long"
    assert safe_filename("evil\u202egpj.exe\u200b") == "evil gpj.exe"


def test_set_frontmatter_is_a_minimal_in_place_edit(vault):
    text = (
        "---\r\ntitle: Book  # my comment\r\ntags:\r\n  - a\r\nprocessed_date:\r\n"
        "weird: {x: 1}\r\n---\r\nBody\r\n\r\n"
    )
    (vault / "notes/S.md").write_bytes(text.encode())
    writer = VaultWriter(vault)
    note = writer.read("notes/S.md")
    writer.set_frontmatter(
        "notes/S.md", {"processed_date": "2026-01-02T03:04:05"}, expected_hash=note.hash
    )
    new = (vault / "notes/S.md").read_bytes().decode()
    assert new == text.replace("processed_date:\r\n", "processed_date: '2026-01-02T03:04:05'\r\n")


def test_set_fields_adds_creates_and_removes():
    assert set_fields("body\n", {"a": 1}) == "---\na: 1\n---\nbody\n"
    assert set_fields("---\nx: 1\n---\n", {"y": [1, 2]}) == "---\nx: 1\ny:\n- 1\n- 2\n---\n"
    assert set_fields("---\nx: 1\ny:\n- 1\nz: 2\n---\n", {"y": REMOVE}) == "---\nx: 1\nz: 2\n---\n"
    assert set_fields("---\nx: 1\n---\n", {"q": REMOVE}) == "---\nx: 1\n---\n"


def test_insert_block_id_keeps_everything_else(vault):
    text = "## Highlights\n- quote one\n- quote two\n"
    (vault / "notes/S.md").write_text(text)
    writer = VaultWriter(vault)
    note = writer.read("notes/S.md")
    offset = text.index("\n- quote two")
    writer.insert_at("notes/S.md", {offset: " ^q-1"}, expected_hash=note.hash)
    assert (vault / "notes/S.md").read_text() == text.replace("one\n", "one ^q-1\n")
    with pytest.raises(ConflictError):
        writer.insert_at("notes/S.md", {0: "x"}, expected_hash=note.hash)


def test_move_refuses_to_overwrite(vault):
    writer = VaultWriter(vault)
    (vault / "notes/A.md").write_text("a")
    (vault / "notes/B.md").write_text("b")
    with pytest.raises(VaultWriteError):
        writer.move("notes/A.md", "notes/B.md")
    assert writer.move("notes/A.md", "notes/C.md") == "notes/C.md"
    assert (vault / "notes/C.md").read_text() == "a" and (vault / "notes/B.md").read_text() == "b"


chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
yaml_values = st.one_of(
    st.text(chars, max_size=30),
    st.integers(),
    st.booleans(),
    st.lists(st.text(chars, max_size=10), max_size=3),
)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), yaml_values, max_size=4),
    st.dictionaries(
        st.from_regex(r"[a-z_]{1,8}", fullmatch=True), yaml_values, min_size=1, max_size=3
    ),
    st.text(chars, max_size=80),
    st.sampled_from(["\n", "\r\n"]),
)
def test_set_fields_round_trips_and_keeps_the_body(existing, updates, body, nl):
    fm = "".join(dump_field(k, v, nl) for k, v in existing.items())
    text = f"---{nl}{fm}---{nl}{body}"
    new = set_fields(text, updates)
    note = parse_note("n.md", new.encode())
    assert note.frontmatter == {**existing, **updates}
    assert new.endswith(body) and new[note.body_start :] == body
    for key in existing:
        if key not in updates:
            assert dump_field(key, existing[key], nl) in new


def test_new_names_are_unique_in_the_whole_vault(vault):
    """A bare [[Name]] would be ambiguous: a new note never shares a name with another note,
    whatever its folder (and whatever the case or the Unicode form of the name)."""
    (vault / "elsewhere/deep").mkdir(parents=True)
    (vault / "elsewhere/deep/Idea.md").write_text("x")
    (vault / "elsewhere/CAFE\u0301.md").write_text("x")  # NFD on disk
    (vault / "elsewhere/diagram.png").write_bytes(b"\x89PNG")
    writer = VaultWriter(vault)
    assert writer.unique_path("notes", "Idea") == "notes/Idea 2.md"
    assert writer.unique_path("notes", "café") == "notes/café 2.md"
    assert writer.unique_path("notes", "diagram.png") == "notes/diagram.png.md"
    assert writer.unique_path("notes", "Idea", vault_wide=False) == "notes/Idea.md"


def test_a_move_leaves_no_empty_folder_behind(vault):
    (vault / "notes/sub/deeper").mkdir(parents=True)
    (vault / "notes/sub/deeper/Lonely.md").write_text("x")
    (vault / "notes/sub/Kept.md").write_text("x")
    writer = VaultWriter(vault, VaultLayout(concepts="notes"))
    writer.archive("notes/sub/deeper/Lonely.md")
    assert not (vault / "notes/sub/deeper").exists() and (vault / "notes/sub").is_dir()
    writer.move("notes/sub/Kept.md", "notes/Kept.md")
    assert not (vault / "notes/sub").exists()
    assert (vault / "notes").is_dir()  # a folder of the layout stays, even empty
    writer.move("notes/Kept.md", "other/Kept.md")
    assert (vault / "notes").is_dir()


def test_edits_touch_only_what_changes():
    text = (
        "---\naliases: [Uno, 'Dos']\ntags:\n  - a\n  - b\nsummary: \"kept\"  # a comment\n"
        "concept_relations:\n  SUPPORTS:\n  - x\n---\nbody\n"
    )
    same = {"aliases": ["Uno", "Dos"], "tags": ["a", "b"], "concept_relations": {"SUPPORTS": ["x"]}}
    assert set_fields(text, same) == text  # nothing changes: not one byte
    edited = set_fields(text, {"aliases": ["Uno", "Dos", "Tres"], "tags": ["a", "c"]})
    assert edited == text.replace("aliases: [Uno, 'Dos']", "aliases: [Uno, Dos, Tres]").replace(
        "  - b\n", "  - c\n"
    )
    assert set_fields(text, {"summary": "kept"}) == text
