"""Quotes of source notes in the shapes Kindle and Readwise exports write."""

from __future__ import annotations

from vault.note import parse_note
from vault.sources import block_id_inserts, parse_quotes, stable_quote_id

READWISE = """---
title: Atomic Habits
---
# Atomic Habits
## Highlights
- First quote spans
  two lines. ([Location 12](https://readwise.io/to_kindle?location=12))
    - **Note:** my own note, not the quote
- Second quote ^given-id
1. Numbered quote

## Notes
- not a quote
"""

KINDLE = """## Citas\r
> Primera cita\r
> en dos líneas.\r
> — location: [10](kindle://book) ^k-10\r
\r
> Segunda cita\r
>\r
> Tercera cita\r
```\r
> dentro de código\r
```\r
"""


def test_readwise_list_items():
    quotes = parse_quotes(parse_note("s.md", READWISE.encode()))
    assert [(q.text, q.block_id) for q in quotes] == [
        ("First quote spans two lines.", None),
        ("Second quote", "given-id"),
        ("Numbered quote", None),
    ]
    assert quotes[0].id == stable_quote_id("First quote spans two lines.")
    assert quotes[1].id == "given-id"


def test_kindle_blockquotes_with_crlf():
    note = parse_note("s.md", KINDLE.encode())
    quotes = parse_quotes(note)
    assert [(q.text, q.id) for q in quotes] == [
        ("Primera cita en dos líneas.", "k-10"),
        ("Segunda cita", stable_quote_id("Segunda cita")),
        ("Tercera cita", stable_quote_id("Tercera cita")),
    ]
    assert note.text[quotes[1].line_end : quotes[1].line_end + 2] == "\r\n"


def test_stable_id_ignores_case_and_spacing_and_duplicates_get_a_suffix():
    assert stable_quote_id("Hello   World") == stable_quote_id("hello world")
    note = parse_note("s.md", b"## Quotes\n- same\n- Same\n")
    ids = [q.id for q in parse_quotes(note)]
    assert ids == [stable_quote_id("same"), stable_quote_id("same") + "-2"]


def test_block_id_inserts_make_stable_ids_real():
    note = parse_note("s.md", READWISE.encode())
    quotes = parse_quotes(note)
    inserts = block_id_inserts(quotes)
    text = note.text
    for offset in sorted(inserts, reverse=True):
        text = text[:offset] + inserts[offset] + text[offset:]
    again = parse_quotes(parse_note("s.md", text.encode()))
    assert [q.id for q in again] == [q.id for q in quotes]
    assert all(q.block_id == q.id for q in again)
    assert (
        text.replace(inserts[quotes[0].line_end], "", 1).replace(inserts[quotes[2].line_end], "", 1)
        == note.text
    )


PODCAST = """## Highlights
- [00:12:34] Compounding works on knowledge.
- [1:02:03](https://share.snipd.com/x) — Never interrupt it.
- (05:07) Small things add up.

> [00:45:10] Habits compound.
^kp-habits

> After a blank line.

^kp-blank

> [not a time] stays in the text.
^bad_id because this line is text
"""


def test_podcast_time_stamps_are_locations_and_lone_block_ids_attach():
    quotes = parse_quotes(parse_note("p.md", PODCAST.encode()))
    assert [(q.location, q.text, q.block_id) for q in quotes] == [
        ("00:12:34", "Compounding works on knowledge.", None),
        ("1:02:03", "Never interrupt it.", None),
        ("05:07", "Small things add up.", None),
        ("00:45:10", "Habits compound.", "kp-habits"),
        (None, "After a blank line.", "kp-blank"),
        (None, "[not a time] stays in the text.", None),  # the next line is no block id
    ]
    assert quotes[3].id == "kp-habits" and quotes[4].id == "kp-blank"
    # ids already written are never written again
    assert set(block_id_inserts(quotes)) == {q.line_end for q in quotes if q.block_id is None}
