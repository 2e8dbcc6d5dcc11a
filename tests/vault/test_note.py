"""The note model and malformed inputs: nothing crashes, nothing is touched, warnings recorded."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.store import Store
from vault.frontmatter_edit import set_fields
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.note import NoteUnreadable, content_hash, parse_note, read_note


def test_frontmatter_order_unknown_keys_aliases_tags_sections_blocks():
    text = (
        "---\r\nzeta: 1\r\nalpha: two\r\naliases: [A1, A2]\r\ntags: [x, '#y']\r\ncustom:\r\n"
        "  nested: true\r\n---\r\n# Top\r\nintro ^top-1\r\n## Sub\r\ntext [[Link]]\r\n"
        "```\r\n## not a heading ^not-a-block\r\n```\r\n# Second\r\nend\r\n"
    )
    note = parse_note("folder/My Note.md", text.encode())
    assert list(note.frontmatter) == ["zeta", "alpha", "aliases", "tags", "custom"]
    assert note.frontmatter["custom"] == {"nested": True}
    assert note.title == "My Note"
    assert note.aliases == ["A1", "A2"] and note.tags == ["x", "y"]
    assert [(s.level, s.heading) for s in note.sections] == [(1, "Top"), (2, "Sub"), (1, "Second")]
    top = note.sections[0]
    assert note.text[top.content_start : top.end].startswith("intro ^top-1\r\n## Sub")
    assert note.block_ids == ["top-1"]
    assert [link.target for link in note.links] == ["Link"]
    assert note.body.startswith("# Top\r\n")
    assert note.hash == content_hash(text.encode())


def test_no_frontmatter_and_horizontal_rules():
    note = parse_note("a.md", b"text\n---\nmore\n---\n")
    assert note.frontmatter == {} and note.body_start == 0 and not note.warnings


@pytest.mark.parametrize(
    "data, kind",
    [
        (b"---\ntitle: [unclosed\n---\nbody [[X]]\n", "malformed"),
        (b"---\n- a list\n- not a mapping\n---\nbody\n", "mapping"),
        (b"", "empty"),
        (b"   \n\n", "empty"),
    ],
)
def test_malformed_notes_are_read_without_frontmatter_with_a_warning(data, kind):
    note = parse_note("bad.md", data)
    assert note.frontmatter == {}
    assert note.body_start == 0
    assert len(note.warnings) == 1 and kind in note.warnings[0]


@pytest.mark.parametrize(
    "data, reason",
    [(b"\x89PNG\r\n\x1a\n\x00\x00", "binary"), ("café".encode("latin-1"), "not UTF-8")],
)
def test_binary_and_non_utf8_are_skipped(data, reason):
    with pytest.raises(NoteUnreadable, match=reason):
        parse_note("x.md", data)


def test_huge_note_is_skipped(tmp_path):
    (tmp_path / "big.md").write_bytes(b"x" * 2048)
    with pytest.raises(NoteUnreadable, match="over the 1024-byte limit"):
        read_note(tmp_path, "big.md", max_bytes=1024)


def test_index_records_warnings_and_never_touches_bad_files(tmp_path):
    files = {
        "bad yaml.md": b"---\nkey: [oops\n---\n[[Target]]\n",
        "binary.md": b"\x00\x01\x02\xff",
        "latin.md": "niño".encode("latin-1"),
        "empty.md": b"",
        "huge.md": b"word " * 400,
        "fine.md": b"---\na: 1\n---\nok\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    stamps = {name: os.stat(tmp_path / name).st_mtime_ns for name in files}
    store = Store(tmp_path.parent / f"{tmp_path.name}.sqlite3")
    result = VaultIndex(store, tmp_path, VaultLayout(max_note_bytes=1000)).sync()
    warned = {w.split(":")[0] for w in result.warnings}
    assert warned == {"bad yaml.md", "binary.md", "latin.md", "empty.md", "huge.md"}
    rows = {r["path"] for r in store.query("SELECT path FROM vault_warnings")}
    assert rows == warned
    indexed = {r["path"] for r in store.query("SELECT path FROM notes")}
    assert indexed == {"bad yaml.md", "empty.md", "fine.md"}
    assert (
        store.query_one("SELECT target FROM links WHERE source_path='bad yaml.md'")[0] == "Target"
    )
    for name, data in files.items():
        assert (tmp_path / name).read_bytes() == data
        assert os.stat(tmp_path / name).st_mtime_ns == stamps[name]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_parser_never_crashes(data):
    try:
        note = parse_note("n.md", data)
    except NoteUnreadable:
        return
    assert note.text.encode("utf-8") == data
    assert 0 <= note.body_start <= len(note.text)
    _ = (note.sections, note.block_ids, note.links, note.aliases, note.tags)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("-ab:\n \r'\"[]#{}")), max_size=120))
def test_frontmatter_like_text_never_crashes(body):
    try:
        note = parse_note("n.md", ("---\n" + body).encode())
    except NoteUnreadable:
        return
    assert isinstance(note.frontmatter, dict)


def test_frontmatter_after_a_byte_order_mark_is_read_and_edited_in_place():
    data = "\ufeff---\ntitle: Book\naliases: [B]\n---\nbody\n".encode()
    note = parse_note("a.md", data)
    assert note.frontmatter == {"title": "Book", "aliases": ["B"]} and note.aliases == ["B"]
    assert note.body == "body\n"
    edited = set_fields(data.decode("utf-8"), {"processed_date": "2026-01-02"})
    assert (
        edited == "\ufeff---\ntitle: Book\naliases: [B]\nprocessed_date: '2026-01-02'\n---\nbody\n"
    )


def test_a_hash_before_inline_code_is_no_heading():
    """`#```x```` is a paragraph (a heading needs a space after its `#`s); blanking the code
    span must not turn it into one (hypothesis found a model text that did)."""
    note = parse_note("n.md", b"# Real\n#```#```\n## Also `code` here\ntext\n")
    assert [(s.level, s.heading) for s in note.sections] == [(1, "Real"), (2, "Also `code` here")]
