"""Link parsing in every form Obsidian writes, and rewriting on rename/merge."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vault.links import parse_links, rewrite_links, target_matcher

NOTE = """---
related: "[[Alpha]]"
up: ["[[folder/Beta|B]]"]
---
# Title

See [[Alpha]], [[Alpha|the first]], [[Alpha#Intro]], [[Alpha#^blk-1]], [[folder/Beta]].
Embed: ![[Gamma]] and ![[pic.png]].
Markdown: [text](Delta%20Note.md) and [angle](<Epsilon Note.md#Part>) and [web](https://x.org/a.md).
Table | [[Alpha\\|shown]] |

`[[NotInline]]`

```
[[NotFenced]] [t](NotFenced.md)
```
~~~python
[[AlsoNot]]
~~~
"""


def test_every_link_form_is_parsed():
    links = parse_links(NOTE)
    summary = [(x.kind, x.embed, x.target, x.subpath, x.alias, x.in_frontmatter) for x in links]
    assert summary == [
        ("wiki", False, "Alpha", "", None, True),
        ("wiki", False, "folder/Beta", "", "B", True),
        ("wiki", False, "Alpha", "", None, False),
        ("wiki", False, "Alpha", "", "the first", False),
        ("wiki", False, "Alpha", "#Intro", None, False),
        ("wiki", False, "Alpha", "#^blk-1", None, False),
        ("wiki", False, "folder/Beta", "", None, False),
        ("wiki", True, "Gamma", "", None, False),
        ("wiki", True, "pic.png", "", None, False),
        ("markdown", False, "Delta Note.md", "", "text", False),
        ("markdown", False, "Epsilon Note.md", "#Part", "angle", False),
        ("wiki", False, "Alpha", "", "shown", False),
    ]
    assert links[5].block == "blk-1"
    assert links[9].name == "Delta Note"
    for link in links:
        assert NOTE[link.start : link.end].endswith(("]]", ")"))


def test_nothing_inside_code_counts():
    names = {link.name for link in parse_links(NOTE)}
    assert not names & {"NotInline", "NotFenced", "AlsoNot"}


def test_matcher_is_case_insensitive_and_path_aware():
    matches = target_matcher("08 - Ideas/Old Note.md")
    assert matches("Old Note") and matches("old note.md") and matches("08 - Ideas/Old Note")
    assert target_matcher("Notes/Ideas/Old Note.md")("Ideas/Old Note")
    assert not matches("Other/Old Note") and not matches("Old") and not matches("")


def test_rewrite_keeps_headings_blocks_and_shown_text():
    text = (
        '---\nup: "[[Old]]"\n---\n[[Old]] [[Old|kept]] [[Old#H]] [[Old#^b1]] ![[Old]]\n'
        "[[x/Old]] [md](Old.md) [md2](<Old.md#Sec>) [[Older]] `[[Old]]`\n"
    )
    new, edits = rewrite_links(text, "Old.md", "x/New Name.md")
    assert new == (
        '---\nup: "[[New Name|Old]]"\n---\n[[New Name|Old]] [[New Name|kept]] [[New Name#H|Old]]'
        " [[New Name#^b1|Old]] ![[New Name]]\n"
        "[[x/Old]] [md](New%20Name.md) [md2](<New Name.md#Sec>) [[Older]] `[[Old]]`\n"
    )
    assert len(edits) == 8  # [[x/Old]] is another note (a path that does not match Old.md)
    assert edits[0].before == "[[Old]]" and edits[0].after == "[[New Name|Old]]"


def test_rewrite_of_a_path_link_writes_the_new_path():
    new, _ = rewrite_links("[[Ideas/Old]] [[Old.md]]\n", "Ideas/Old.md", "Ideas/New.md")
    assert new == "[[Ideas/New|Ideas/Old]] [[New.md|Old.md]]\n"


def test_rewrite_keeps_escaped_table_pipe():
    new, _ = rewrite_links("| [[Old\\|shown]] |\n", "Old.md", "New.md")
    assert new == "| [[New\\|shown]] |\n"


def test_rewrite_inside_a_table_row_escapes_the_added_pipe():
    text = "| a | [[Old]] |\n|---|---|\n| [[Old#H]] | x |\n[[Old]]\n"
    new, _ = rewrite_links(text, "Old.md", "New.md")
    assert new == "| a | [[New\\|Old]] |\n|---|---|\n| [[New#H\\|Old]] | x |\n[[New|Old]]\n"


def test_rewrite_without_matches_returns_same_text():
    text = "nothing [[Else]] here\r\n"
    assert rewrite_links(text, "Old.md", "New.md") == (text, [])


markdownish = st.text(
    alphabet=st.sampled_from(list("ab O[]()|#^!`~-\n\r:>*.md/\\\"' ")) | st.characters(),
    max_size=300,
)


@settings(max_examples=300, deadline=None)
@given(markdownish)
def test_parser_never_crashes_and_spans_are_inside(text):
    for link in parse_links(text):
        assert 0 <= link.start < link.end <= len(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["[[Old]]", "[[Old|s]]", "![[Old]]", "[m](Old.md)", "[[Old#h]]"]),
        max_size=5,
    ),
    st.lists(markdownish, min_size=6, max_size=6),
)
def test_rewrite_preserves_bytes_outside_edits(links, fillers):
    pieces = [fillers[0]]
    for link, filler in zip(links, fillers[1:], strict=False):
        pieces += [link, filler]
    text = "".join(pieces)
    new, edits = rewrite_links(text, "Old.md", "New.md")
    # Undo each edit from the end: the original text must come back exactly.
    restored = new
    shift = sum(len(e.after) - (e.end - e.start) for e in edits)
    for edit in reversed(edits):
        shift -= len(edit.after) - (edit.end - edit.start)
        start = edit.start + shift
        assert restored[start : start + len(edit.after)] == edit.after
        restored = restored[:start] + edit.before + restored[start + len(edit.after) :]
    assert restored == text
    assert all("Old" in e.before and "New" in e.after for e in edits)


def test_markdown_links_without_md_and_attachments_are_links():
    text = "[Tres](Three%20laws%20of%20motion) [Pdf](paper.pdf) ![img](img/a%20b.png) [web](https://x.y/z)"
    assert [(x.target, x.embed) for x in parse_links(text)] == [
        ("Three laws of motion", False),
        ("paper.pdf", False),
        ("img/a b.png", True),
    ]


def test_indented_code_holds_no_links_but_list_paragraphs_do():
    text = (
        "Para.\n\n    [[Code]] [md](Code.md)\n\tstill [[Code2]]\n\nText [[Real]]\n\n"
        "- item\n\n    [[InList]]\n\n# Heading\n    [[AfterHeading]]\n"
    )
    assert [x.target for x in parse_links(text)] == ["Real", "InList"]


def test_rewrite_follows_obsidian_resolution():
    from vault.resolve import LinkResolver

    before = LinkResolver(["A/Old.md", "B/old.md", "Here/New.md", "Elsewhere/New.md.md"])
    after = LinkResolver(["B/old.md", "Here/New.md", "Elsewhere/New.md.md", "Far/New.md"])
    text = "[[Old]] [[old]] [[B/old]] [x](Old.md)\n"
    new, edits = rewrite_links(
        text, "A/Old.md", "Far/New.md", "Here/Note.md", before=before, after=after
    )
    # [[old]] and [[B/old]] open B/old.md; the others open A/Old.md. A bare [[New]] would open
    # Here/New.md from this note's folder: the vault path is written instead.
    assert new == "[[Far/New|Old]] [[old]] [[B/old]] [x](Far/New.md)\n"
    assert len(edits) == 2
