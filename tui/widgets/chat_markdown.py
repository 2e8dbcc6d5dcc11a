"""Markdown rendered by Rich into lines (Strips) at a width: the tutor chat's messages (and,
as one renderable, `rich_markdown`, model text shown elsewhere: feedback, review details).

The chat draws line by line (tutor_chat.py), so a message's Markdown is rendered into lines
once per width. A message is rendered block by block (a paragraph, a list, a code block, a
table...), each block from the tokens of one parse of the whole message; `render_markdown`
takes a cache of the blocks rendered last time, so a reply that streams in costs its last
block per frame, not its whole length.

Chat rules, on top of CommonMark with tables and strikethrough:
- a single line break is a line break (models write "Hint: ..." on its own line);
- raw HTML is shown as text, not dropped;
- headings are left-aligned (Rich centres h1: odd in a chat);
- who speaks ("Tutor: ") starts the first paragraph, or has its own line above a first block
  that is not a paragraph (a heading, a list, code);
- links show their address: `text (https://...)`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.strip import Strip

from vault.blocktext import clean_text

CODE_THEME = "monokai"
PARSER = MarkdownIt("commonmark", {"html": False}).enable(["strikethrough", "table"])

UNCLEAN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What `clean_text` takes out (control characters, line separators, bidi overrides,
surrogates): most messages hold none, and looking costs far less than cleaning."""

BlockKey = tuple[str, int, str, str]
"""A rendered block's cache key: its source, the width, the label it starts with as markup
('' none), the style under it: the streamed reply's blocks serve its message when they look
the same."""


def shown_text(text: str) -> str:
    """`text` without what would reach the terminal as a command (escapes) or turn it
    around (bidi overrides): a message may hold anyone's text."""
    return clean_text(text) if UNCLEAN.search(text) else text


@lru_cache(maxsize=64)
def lexer_for(name: str) -> Lexer | str:
    """A Pygments lexer by name, found once (the search costs milliseconds each time)."""
    try:
        return get_lexer_by_name(name)
    except ClassNotFound:
        return "text"


class ChatCodeBlock(CodeBlock):
    """A fenced code block, highlighted, with its lexer found once per language."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(code, lexer_for(self.lexer_name), theme=self.theme, word_wrap=True, padding=1)


class ChatHeading(Heading):
    """A heading on the left, as the rest of the chat."""

    LEVEL_ALIGN = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class BlockMarkdown(Markdown):
    """Rich's Markdown over tokens parsed already (one block of a message)."""

    elements = {
        **Markdown.elements,
        "heading_open": ChatHeading,
        "fence": ChatCodeBlock,
        "code_block": ChatCodeBlock,
    }

    def __init__(self, tokens: list[Token]) -> None:  # noqa: D107 - not Markdown's: no parser
        # Markdown.__init__ builds a parser each time (most of a short message's cost); the
        # tokens come from the one parse of the whole message
        self.markup = ""
        self.parsed = tokens
        self.code_theme = CODE_THEME
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = CODE_THEME


def split_blocks(markup: str) -> list[tuple[str, list[Token]]]:
    """The message's top-level blocks: (source lines, tokens), in order."""
    lines = markup.split("\n")
    blocks: list[tuple[str, list[Token]]] = []
    current: list[Token] = []
    for token in PARSER.parse(markup):
        current.append(token)
        if token.level == 0 and token.nesting != 1:  # a top-level block ends here
            start, end = current[0].map or (0, len(lines))
            blocks.append(("\n".join(lines[start:end]), current))
            current = []
    return blocks


class ShownMarkdown:
    """Model text as one Rich renderable, rendered as the chat renders a message (with its
    `label` first, if any), at the width it is given: for a Static (rubric feedback, an
    extracted concept's fields)."""

    def __init__(self, text: str, label: Text | None = None) -> None:
        self.text, self.label = text, label

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines, _ = render_markdown(console, self.text, options.max_width, self.label)
        for strip in lines:
            yield from strip
            yield Segment.line()


def rich_markdown(text: str, label: Text | str | None = None) -> ShownMarkdown:
    """`text` (Markdown) as a renderable for a Static; `label` (bold if a str) starts it."""
    if isinstance(label, str):
        label = Text(label, style="bold")
    return ShownMarkdown(text, label)


def hard_breaks(tokens: Iterable[Token]) -> None:
    """Every single line break of the text becomes a line break on screen."""
    for token in tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


def render_markdown(
    console: Console,
    markup: str,
    width: int,
    label: Text | None = None,
    style: Style | None = None,
    cache: Mapping[BlockKey, list[Strip]] | None = None,
) -> tuple[list[Strip], dict[BlockKey, list[Strip]]]:
    """`markup`'s lines at `width`, after `label` (who speaks), with `style` under all of it.

    Blocks found in `cache` are not rendered again; the cache returned holds this render's
    blocks only (pass it to the next render of the same growing text)."""
    options = console.options.update_width(width)
    used: dict[BlockKey, list[Strip]] = {}
    lines: list[Strip] = []
    blocks = split_blocks(shown_text(markup))
    if label is not None and (not blocks or blocks[0][1][0].type != "paragraph_open"):
        lines += render_text(console, label, width)  # on its own line, above the block
        label = None
    for n, (source, tokens) in enumerate(blocks):
        head = label.markup if label is not None and n == 0 else ""
        key = (source, width, head, str(style or ""))
        strips = (cache or {}).get(key)
        if strips is None:
            strips = render_block(console, tokens, options, label if n == 0 else None, style)
        used[key] = strips
        if n:
            lines.append(Strip.blank(width))
        lines += strips
    return lines, used


def render_block(
    console: Console,
    tokens: list[Token],
    options: ConsoleOptions,
    label: Text | None,
    style: Style | None,
) -> list[Strip]:
    """One block's lines; a `label` starts its paragraph, in the label's own style."""
    hard_breaks(tokens)
    if label is not None:  # the first token opens a paragraph; the second holds its text
        tokens[1].children = [
            Token("text", "", 0, content=label.plain),
            *(tokens[1].children or []),
        ]
    rendered = console.render_lines(BlockMarkdown(tokens), options, style=style, pad=False)
    strips = [Strip(line) for line in rendered]
    strips = trim_blank(strips)
    if label is not None and strips and strips[0].cell_length > label.cell_len:
        head = Strip(Segment.apply_style(label.render(console), console.get_style(label.style)))
        strips[0] = Strip.join([head, strips[0].crop(label.cell_len, strips[0].cell_length)])
    return strips


def trim_blank(strips: list[Strip]) -> list[Strip]:
    """`strips` without the blank lines Rich opens (and closes) some blocks with."""
    start, end = 0, len(strips)
    while start < end and looks_blank(strips[start]):
        start += 1
    while end > start and looks_blank(strips[end - 1]):
        end -= 1
    return strips[start:end]


def looks_blank(strip: Strip) -> bool:
    """A line that shows nothing: only spaces, on no background of its own (a table's open
    top and bottom; not a code block's padding, which has its background)."""
    return all(
        not segment.text.strip() and (segment.style is None or segment.style.bgcolor is None)
        for segment in strip
    )


def render_text(console: Console, text: Text, width: int) -> list[Strip]:
    """Plain text's lines at `width` (line breaks kept, long lines wrapped)."""
    options = console.options.update_width(width)
    return [Strip(line) for line in console.render_lines(text, options, pad=False)]
