"""The lessons' rendered preview: Markdown shown rendered, and a jump to a line of its source."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Markdown

from tui.widgets.markdown_preview import MarkdownPreview

LESSON = "# Fracciones 🍕\n\n" + "".join(
    f"## Parte {n}\n\nUna **pizza** en {n} porciones:\n\n- ½\n- ¼\n\n" for n in range(1, 13)
)


class Host(App):
    def compose(self):
        yield MarkdownPreview(id="preview")


async def show_lesson(pilot, app: Host) -> MarkdownPreview:
    preview = app.query_one(MarkdownPreview)
    await preview.show(LESSON)
    await pilot.pause()
    return preview


async def test_the_note_is_rendered_not_shown_as_source() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        preview = await show_lesson(pilot, app)
        document = preview.query_one(Markdown)
        headings = [b for b in document.children if b.name == "heading_open"]
        assert len(headings) == 13 and preview.text == LESSON
        shown = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any("Fracciones" in line for line in shown)
        assert not any("## Parte" in line or "**pizza**" in line for line in shown)


async def test_a_jump_brings_the_block_of_a_line_to_the_top_and_marks_it() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        preview = await show_lesson(pilot, app)
        line = LESSON.splitlines().index("## Parte 9")
        block = preview.goto_line(line)
        await pilot.pause()
        assert block is preview.marked and block.source.startswith("## Parte 9")
        top = preview.content_region.y
        assert preview.scroll_y > 0 and top <= block.region.y <= top + 2  # (its margin above)
        assert block.has_class("-jumped")
        again = preview.goto_line(LESSON.splitlines().index("## Parte 2"))
        assert again is not None and not block.has_class("-jumped")  # one mark at a time
        assert preview.goto_line(10_000) is None
