"""A note shown rendered (Textual's Markdown widget) in a scrolling pane that can jump to a
line of its source: the lessons' preview, where an issue of the self-review points at a
section."""

from __future__ import annotations

from typing import Unpack

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

from tui.widgets.chat_markdown import shown_text
from tui.widgets.options import WidgetOptions


class MarkdownPreview(VerticalScroll, can_focus=True):
    """Rendered Markdown; `text` is its source, `goto_line` scrolls to the block holding a
    line of it and marks that block."""

    DEFAULT_CSS = """
    MarkdownPreview { border: round $primary; padding: 0 1; }
    MarkdownPreview:focus { border: round $accent; }
    MarkdownPreview Markdown { margin: 0; padding: 0; }
    MarkdownPreview .-jumped { background: $accent 20%; }
    """

    def __init__(self, text: str = "", **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.text = text
        self.marked: MarkdownBlock | None = None
        """The block the last `goto_line` went to."""

    def compose(self) -> ComposeResult:
        yield Markdown(shown_text(self.text))

    async def show(self, text: str) -> None:
        """Show `text` (a note's Markdown) from its top."""
        self.text = text
        self.marked = None
        await self.query_one(Markdown).update(shown_text(text))
        self.scroll_home(animate=False)

    def load_text(self, text: str) -> None:
        """`show`, from code that does not wait for it."""
        self.text = text
        self.run_worker(self.show(text), group="markdown-preview", exclusive=True)

    def goto_line(self, line: int) -> MarkdownBlock | None:
        """Scroll the top-level block that holds source line `line` (0-based) to the top of
        the view and mark it; None when no block holds it."""
        document = self.query_one(Markdown)
        blocks = [b for b in document.children if isinstance(b, MarkdownBlock)]
        block = next((b for b in blocks if b.source_range[0] <= line < b.source_range[1]), None)
        if block is None:
            return None
        if self.marked is not None:
            self.marked.remove_class("-jumped")
        block.add_class("-jumped")
        self.marked = block
        self.scroll_to_widget(block, top=True, animate=False)
        return block
