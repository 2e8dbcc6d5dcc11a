"""The answer box: enter sends, ctrl+j (or shift/alt+enter where they arrive) adds a line, it
grows with its text up to its limit, and a text put back (a draft) continues at its end."""

from __future__ import annotations

from textual import events
from textual.app import App

from tui.widgets.answer_box import AnswerBox


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self):
        yield AnswerBox("Your answer", id="answer")

    def on_answer_box_submitted(self, message: AnswerBox.Submitted) -> None:
        self.sent.append(message.value)


async def test_enter_sends_and_ctrl_j_adds_a_line() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        box = app.query_one(AnswerBox)
        box.focus()
        await pilot.press(*"uno", "ctrl+j", *"dos ½", "ctrl+j", "ctrl+j", *"ñ")
        await pilot.pause()
        assert box.value == "uno\ndos ½\n\nñ" and app.sent == []
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == ["uno\ndos ½\n\nñ"]
        assert box.value == "uno\ndos ½\n\nñ"  # the screen empties it once the answer is taken


async def test_shift_and_alt_enter_add_a_line_where_the_terminal_sends_them() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        box = app.query_one(AnswerBox)
        box.focus()
        await pilot.press("a", "shift+enter", "b", "alt+enter", "c")
        await pilot.pause()
        assert box.value == "a\nb\nc" and app.sent == []


async def test_a_new_line_replaces_the_selected_text() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        box = app.query_one(AnswerBox)
        box.focus()
        box.value = "uno dos"
        box.select_all()
        await pilot.press("ctrl+j")
        assert box.value == "\n" and box.cursor_location == (1, 0)


async def test_the_box_grows_with_its_lines_up_to_its_limit() -> None:
    app = Host()
    async with app.run_test(size=(60, 30)) as pilot:
        box = app.query_one(AnswerBox)
        box.focus()
        await pilot.pause()
        one_line = box.outer_size.height
        await pilot.press("a", "ctrl+j", "b", "ctrl+j", "c")
        await pilot.pause()
        assert box.outer_size.height == one_line + 2
        box.value = "\n".join(f"línea {n}" for n in range(30))
        await pilot.pause()
        assert box.outer_size.height == 10  # its max-height: the rest scrolls
        assert box.scroll_y > 0  # the cursor's line (the last) is in view


async def test_a_text_put_back_continues_at_its_end_and_pasted_lines_stay_lines() -> None:
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        box = app.query_one(AnswerBox)
        box.focus()
        box.value = "la mitad,\ncreo"
        assert box.cursor_location == (1, 4)
        await pilot.press(*" yo")
        app.post_message(events.Paste("\nuna línea\notra"))  # the app gives it to the box
        await pilot.pause()
        assert box.value == "la mitad,\ncreo yo\nuna línea\notra" and app.sent == []
