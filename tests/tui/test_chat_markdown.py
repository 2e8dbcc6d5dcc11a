"""The tutor chat's Markdown rules (tui/widgets/chat_markdown.py), one test per rule."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.style import Style
from rich.text import Text

from tui.widgets.chat_markdown import render_markdown, split_blocks

WIDTH = 50
TUTOR = Text("Tutor: ", "bold cyan")


@pytest.fixture
def console() -> Console:
    return Console(width=80, color_system="truecolor", force_terminal=True)


def texts(lines) -> list[str]:
    return [line.text.rstrip() for line in lines]


def styles_of(lines, word: str) -> list[Style]:
    """The styles of the segments that hold `word`."""
    return [s.style for line in lines for s in line if word in s.text and s.style is not None]


def test_emphasis_and_inline_code_are_styled_not_shown_as_marks(console) -> None:
    lines, _ = render_markdown(console, "**Idea clave**: usa `x²` y *no* __otra__", WIDTH)
    assert texts(lines) == ["Idea clave: usa x² y no otra"]
    assert any(style.bold for style in styles_of(lines, "Idea clave"))
    assert any(style.italic for style in styles_of(lines, "no"))


def test_a_single_line_break_stays_a_line_break(console) -> None:
    lines, _ = render_markdown(
        console, "¿Qué es mayor, 1/2 o 1/4?\nPista: cuenta las porciones", WIDTH
    )
    assert texts(lines) == ["¿Qué es mayor, 1/2 o 1/4?", "Pista: cuenta las porciones"]


def test_raw_html_is_shown_as_text_not_dropped(console) -> None:
    lines, _ = render_markdown(console, "Use <b>bold</b> or <script>alert(1)</script>", WIDTH)
    assert texts(lines) == ["Use <b>bold</b> or <script>alert(1)</script>"]


def test_headings_sit_on_the_left(console) -> None:
    lines, _ = render_markdown(console, "# Fracciones 🍕\n\n## Partes", WIDTH)
    assert texts(lines) == ["Fracciones 🍕", "", "Partes"]


def test_the_label_starts_the_first_paragraph_in_its_own_style(console) -> None:
    lines, _ = render_markdown(console, "*Pregunta*: ¿cuál?", WIDTH, TUTOR, Style(dim=True))
    assert texts(lines) == ["Tutor: Pregunta: ¿cuál?"]
    label = [s for s in lines[0] if s.text == "Tutor: "]
    assert label and label[0].style.bold and not label[0].style.dim
    assert all(style.dim for style in styles_of(lines, "Pregunta"))


def test_the_label_has_its_own_line_above_a_heading_or_a_list(console) -> None:
    heading, _ = render_markdown(console, "## Repaso\ntexto", WIDTH, TUTOR)
    assert texts(heading) == ["Tutor:", "Repaso", "", "texto"]
    listed, _ = render_markdown(console, "- uno\n- dos", WIDTH, TUTOR)
    assert texts(listed) == ["Tutor:", " • uno", " • dos"]
    empty, _ = render_markdown(console, "", WIDTH, TUTOR)
    assert texts(empty) == ["Tutor:"]


def test_code_blocks_are_highlighted_on_their_own_background(console) -> None:
    source = "```python\ndef mitad(x):\n    return x / 2\n```"
    lines, _ = render_markdown(console, source, WIDTH)
    assert "def mitad(x):" in texts(lines)[1]
    keyword = styles_of(lines, "def")
    name = styles_of(lines, "mitad")
    assert keyword and name and keyword[0].color != name[0].color  # tokens told apart
    assert all(list(line)[0].style.bgcolor is not None for line in lines)  # the block's background


def test_code_in_an_unknown_language_is_shown_as_it_is(console) -> None:
    lines, _ = render_markdown(console, "```klingon\nQapla'!\n```", WIDTH)
    assert any("Qapla'!" in line for line in texts(lines))


def test_tables_have_columns(console) -> None:
    source = "| fracción | valor |\n|---|---:|\n| 1/2 | 0.5 |\n| ¾ | 0.75 |"
    lines = texts(render_markdown(console, source, WIDTH)[0])
    header = next(line for line in lines if "fracción" in line)
    row = next(line for line in lines if "¾" in line)
    assert header.index("valor") > header.index("fracción")
    assert row.endswith("0.75")  # the column is right-aligned as the table says
    assert any(set(line.strip()) == {"─"} for line in lines)  # the rule under the header
    assert "fracción" in lines[0] and "¾" in lines[-1]  # no blank lines around it


def test_a_code_block_keeps_its_padding_lines(console) -> None:
    lines, _ = render_markdown(console, "```\nx = 1\n```", WIDTH)
    assert texts(lines) == ["", " x = 1", ""]  # blank, but on the block's background


def test_lists_get_bullets_and_numbers(console) -> None:
    lines, _ = render_markdown(console, "- manzana\n- pera\n\n1. uno\n2. dos", WIDTH)
    assert texts(lines) == [" • manzana", " • pera", "", " 1 uno", " 2 dos"]


def test_links_show_their_address(console) -> None:
    lines, _ = render_markdown(console, "Ver [la guía](https://example.org/g?q=1).", WIDTH)
    assert texts(lines) == ["Ver la guía (https://example.org/g?q=1)."]


def test_terminal_escapes_in_a_message_do_not_reach_the_screen(console) -> None:
    hostile = "rojo \x1b[31mtexto\x1b[0m\x07 fin \u202eeliforp"
    lines, _ = render_markdown(console, hostile, WIDTH)
    assert texts(lines) == ["rojo [31mtexto[0m fin eliforp"]


def test_long_lines_wrap_at_the_width(console) -> None:
    lines, _ = render_markdown(console, "palabra " * 30, 30, TUTOR)
    assert len(lines) > 5 and all(line.cell_length <= 30 for line in lines)


def test_blocks_are_the_top_level_ones(console) -> None:
    source = "Intro\n\n- a\n  - b\n\n> cita\n\n```\ncode\n```"
    blocks = [src.strip() for src, _ in split_blocks(source)]
    assert blocks == ["Intro", "- a\n  - b", "> cita", "```\ncode\n```"]


def test_a_growing_text_renders_only_the_blocks_that_changed(console) -> None:
    first, cache = render_markdown(console, "Uno.\n\nDos", WIDTH, TUTOR)
    second, cache2 = render_markdown(console, "Uno.\n\nDos y tres", WIDTH, TUTOR, cache=cache)
    assert second[0] is first[0]  # the first block came from the cache
    assert texts(second)[-1] == "Dos y tres"
    assert len(cache2) == 2 and all(key in cache2 for key in cache if key[0] == "Uno.")
    # a paragraph that becomes a heading changes its block's source: rendered again
    third, _ = render_markdown(console, "Uno.\n===\n\nDos y tres", WIDTH, TUTOR, cache=cache2)
    assert texts(third)[:2] == ["Tutor:", "Uno."]


def test_a_streamed_text_ends_as_the_same_lines_as_the_message(console) -> None:
    message = "## Paso 1\n\nCuenta **las porciones**:\n\n- 1/2\n- 1/4\n\n```\n1/2 > 1/4\n```"
    cache: dict = {}
    for end in range(1, len(message) + 1, 7):
        _, cache = render_markdown(console, message[:end], WIDTH, TUTOR, cache=cache)
    streamed, _ = render_markdown(console, message, WIDTH, TUTOR, cache=cache)
    fresh, _ = render_markdown(console, message, WIDTH, TUTOR)
    assert streamed == fresh


def test_the_learners_words_are_shown_as_typed_not_as_markdown(console) -> None:
    from tui.widgets.chat_message import ChatMessage

    typed = ChatMessage({"role": "student", "content": "**no** es *negrita*\n# ni título\x1b[2J"})
    assert texts(typed.lines(console, WIDTH)) == ["You: **no** es *negrita*", "# ni título[2J", ""]


def test_a_message_keeps_its_lines_for_the_last_two_widths(console) -> None:
    from tui.widgets.chat_message import ChatMessage

    message = ChatMessage({"role": "tutor", "kind": "feedback", "content": "Bien: " + "sí " * 40})
    wide = message.lines(console, 60)
    narrow = message.lines(console, 30)
    assert message.lines(console, 60) is wide and len(narrow) > len(wide)
    message.lines(console, 40)  # a third width: the oldest goes
    assert message.lines(console, 60) is not wide and texts(message.lines(console, 60)) == texts(
        wide
    )
    assert texts(narrow)[0].startswith("Feedback: Bien:")


def test_a_stopped_reply_says_so_after_its_text(console) -> None:
    from tui.widgets.chat_message import ChatMessage

    stopped = ChatMessage({"role": "tutor", "content": "Question 2:", "stopped": True})
    assert texts(stopped.lines(console, WIDTH)) == ["Tutor: Question 2:", "[stopped]", ""]
