"""What a tutor turn costs on screen: the screen is laid out again only when a widget's size
changes, and screens nobody sees do not redraw (bench/tutor.py measures the time)."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

from textual.app import App
from textual.screen import Screen
from textual.strip import Strip

from local_llm import CallActivity
from tests.flows.tutor.scripted import TutorScript
from tests.tui.test_tutor_screen import first_question, make_app, turns_done, wait_for
from tui.screens.home import HomeScreen
from tui.screens.tutor import PLACEHOLDER, TutorScreen
from tui.widgets.model_activity import ModelActivityLine
from tui.widgets.tutor_chat import TutorChat


def count_calls(owner: object, name: str, monkeypatch=None) -> list[int]:
    """A list that counts the calls of `owner.name` from now on (its one item); through
    `monkeypatch` (for a module's function), the original comes back after the test."""
    count = [0]
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    (monkeypatch.setattr if monkeypatch else setattr)(owner, name, counted)
    return count


def count_layouts(screen: Screen) -> list[int]:
    """A list that counts the layouts of `screen` from now on (its one item)."""
    return count_calls(screen, "_refresh_layout")


class ChatApp(App):
    def compose(self):
        yield TutorChat()


CONVERSATION = [
    {"role": "tutor" if n % 2 else "student", "content": f"mensaje {n}: ¿qué es 1/2? 🍕"}
    for n in range(30)
]


def shown_strips(chat: TutorChat) -> list[Strip]:
    return [chat.render_line(y) for y in range(chat.scrollable_content_region.height)]


def shown_lines(chat: TutorChat) -> list[str]:
    return [strip.text.rstrip() for strip in shown_strips(chat)]


async def test_the_chat_grows_without_laying_the_screen_out() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.show_messages(CONVERSATION)
        await pilot.pause()
        layouts = count_layouts(app.screen)
        answer = {"role": "student", "content": "la mitad"}
        chat.expect_reply([*CONVERSATION, answer])
        await pilot.pause()
        feedback = {"role": "tutor", "kind": "feedback", "content": "Casi: cuenta las porciones."}
        chat.show_messages([*CONVERSATION, answer, feedback])
        for token in ["Pregunta 2: ", "¿qué es más grande, ", "1/2 o 1/4? " * 6]:
            chat.stream(token)
        await pilot.pause(0.05)  # later tokens are drawn on the next frame
        assert layouts == [0]
        # the view follows the end, and the scrollbar shows the whole range
        assert chat.scroll_y == chat.max_scroll_y > 0
        assert chat.vertical_scrollbar.window_virtual_size == chat.virtual_size.height
        assert chat.vertical_scrollbar.position == chat.scroll_y
        shown = shown_lines(chat)
        assert shown[-1] == "" and "1/2 o 1/4?" in shown[-2]
        assert any(line.startswith("Feedback: Casi") for line in shown)


async def test_a_chat_that_starts_to_overflow_shows_its_scrollbar_and_its_end() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.show_messages(CONVERSATION[:2])
        await pilot.pause()
        assert not chat.show_vertical_scrollbar
        chat.show_messages(CONVERSATION)
        await pilot.pause()
        assert chat.show_vertical_scrollbar and chat.vertical_scrollbar.region.height > 0
        assert chat.scroll_y == chat.max_scroll_y > 0
        assert shown_lines(chat)[-2] == "Tutor: mensaje 29: ¿qué es 1/2? 🍕"
        chat.clear_all()  # shorter again: the scrollbar goes
        await pilot.pause()
        assert not chat.show_vertical_scrollbar and chat.scroll_y == 0


async def test_a_scroll_draws_again_only_the_lines_that_changed() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.show_messages(CONVERSATION)
        await pilot.pause()
        before = shown_lines(chat)
        finished = count_calls(chat, "_finish_line")  # lines made ready to draw
        # the answer and the reply's block come in: the view follows the end, every line in
        # it moves, but only the 4 new ones are drawn anew
        chat.expect_reply([*CONVERSATION, {"role": "student", "content": "la mitad"}])
        await pilot.pause()
        assert shown_lines(chat)[-4:] == ["You: la mitad", "", "Tutor: …", ""]
        assert shown_lines(chat)[:-4] == before[4:]
        assert finished == [4]
        # what the lines were drawn with changes: all are drawn again, as they now look
        background = chat.rich_style.bgcolor
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        assert chat.rich_style.bgcolor != background
        assert all(s.style.bgcolor == chat.rich_style.bgcolor for s in shown_strips(chat)[0])
        wide = shown_strips(chat)[0].cell_length
        await pilot.resize_terminal(40, 20)
        await pilot.pause()
        assert shown_lines(chat)[-2] == "Tutor: …"
        assert shown_strips(chat)[0].cell_length == chat.scrollable_content_region.width < wide


def count_block_renders(monkeypatch) -> list[int]:
    """A list that counts the Markdown blocks rendered from now on (its one item)."""
    from tui.widgets import chat_markdown

    return count_calls(chat_markdown, "render_block", monkeypatch)


REPLY = "## Paso 2\n\nCuenta **las porciones** 🍕:\n\n- 1/2\n- 1/4\n\n```\n1/2 > 1/4\n```"


async def stream_reply(pilot, chat: TutorChat, text: str) -> None:
    """`text` streamed into the chat's live block, in pieces, and drawn."""
    chat.expect_reply(CONVERSATION[:2])
    for start in range(0, len(text), 9):
        chat.stream(text[start : start + 9])
        await pilot.pause(0.02)  # a frame apart: each piece is rendered
    await pilot.pause(0.05)
    assert chat.live == text.rstrip()


async def test_the_streamed_reply_becomes_its_message_without_rendering_it_again(
    monkeypatch,
) -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 30)) as pilot:
        chat = app.query_one(TutorChat)
        await stream_reply(pilot, chat, REPLY)
        muted = chat.text_lines()
        rendered = count_block_renders(monkeypatch)
        reply = {"role": "tutor", "kind": "teaching", "content": REPLY}
        chat.show_messages([*CONVERSATION[:2], reply])
        await pilot.pause()
        assert rendered == [0]  # the message took the blocks rendered as it streamed
        # the same lines, no longer muted
        assert chat.text_lines() == muted and chat.live is None
        words = [s for line in shown_strips(chat) for s in line if s.text.strip()]
        assert any("porciones" in s.text for s in words)
        assert not any(s.style and s.style.dim for s in words)


async def test_a_message_that_differs_from_what_streamed_shows_its_own_text(monkeypatch) -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 30)) as pilot:
        chat = app.query_one(TutorChat)
        await stream_reply(pilot, chat, "Uno.\n\nDos")
        rendered = count_block_renders(monkeypatch)
        # the model's last words never streamed, and the reply is a redirect (its own colour)
        reply = {"role": "tutor", "kind": "redirect", "content": "Uno.\n\nDos y tres."}
        chat.show_messages([*CONVERSATION[:2], reply])
        await pilot.pause()
        assert chat.text_lines()[-4:] == ["Tutor: Uno.", "", "Dos y tres.", ""]
        shown = [line for line in shown_strips(chat) if line.text.strip()]
        label = next(s for s in shown[-2] if s.text.strip())
        assert label.text.startswith("Tutor") and str(label.style.color.name) == "yellow"
        assert rendered == [2]  # both blocks: the label's colour and the text changed
        # at a new width, the message is rendered again for it
        await pilot.resize_terminal(40, 30)
        await pilot.pause()
        assert chat.text_lines()[-2] == "Dos y tres."


async def test_the_last_tokens_of_a_written_reply_are_drawn_once_as_its_message(
    monkeypatch,
) -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 30)) as pilot:
        chat = app.query_one(TutorChat)
        chat.expect_reply(CONVERSATION[:2])
        chat.stream("Uno.\n\n")
        await pilot.pause(0.05)
        assert chat.drawn_version >= chat.first_token_version > 0  # the reply shows coming
        rendered = count_block_renders(monkeypatch)
        chat.stream("Dos y ")
        chat.stream("tres.")
        chat.reply_written()  # the executor is done: its message comes next
        await pilot.pause(0.05)  # a frame, and the flush it was waiting for, went by
        assert rendered == [0] and chat.live == "Uno."  # not drawn muted first
        reply = {"role": "tutor", "kind": "teaching", "content": "Uno.\n\nDos y tres."}
        chat.show_messages([*CONVERSATION[:2], reply])
        await pilot.pause()
        assert rendered == [1]  # the block that had not been drawn, now as the message
        assert chat.text_lines()[-4:] == ["Tutor: Uno.", "", "Dos y tres.", ""]


async def test_a_reply_whose_tokens_were_never_drawn_first_shows_as_its_message() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 30)) as pilot:
        chat = app.query_one(TutorChat)
        chat.expect_reply(CONVERSATION[:2])
        await pilot.pause()
        chat.stream("Uno y dos.")  # the message comes before the tokens' first flush
        reply = {"role": "tutor", "kind": "teaching", "content": "Uno y dos."}
        chat.show_messages([*CONVERSATION[:2], reply])
        assert chat.first_token_version == chat.version  # the reply's tokens show here
        await pilot.pause()
        assert chat.drawn_version >= chat.first_token_version
        assert chat.text_lines()[-2:] == ["Tutor: Uno y dos.", ""]


class ActivityApp(App):
    services = None  # no model client: the line says "model idle" until calls are given

    def compose(self):
        yield ModelActivityLine()


async def test_the_model_line_ticks_without_laying_the_screen_out() -> None:
    app = ActivityApp()
    async with app.run_test(size=(80, 5)) as pilot:
        line = app.query_one(ModelActivityLine)
        await pilot.pause()
        layouts = count_layouts(app.screen)
        call = CallActivity(
            1,
            "tokens",
            "default",
            "openai/gemma3-270m",
            "stream",
            flow="tutor",
            node="executor",
            run_id="s1",
            started=0.0,
        )
        line.live_calls = lambda: [call]
        line.tick()
        await pilot.pause()
        assert "tutor · executor" in str(line.render())
        assert layouts == [0]


async def test_home_under_the_tutor_leaves_its_model_panel_alone(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript())
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        home = app.screen
        assert isinstance(home, HomeScreen)
        drawn: list[bool] = []
        home.render_model = lambda: drawn.append(True)
        await pilot.press("t")
        assert isinstance(app.screen, TutorScreen)
        drawn.clear()
        home._activity_live = True  # a call ended since the panel was drawn
        home.tick_activity()  # the tutor covers home: nothing to draw
        assert drawn == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is home)
        drawn.clear()
        home.tick_activity()
        assert drawn == [True]


async def test_a_sent_answer_writes_no_file_before_the_model_is_asked(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript(["partial"]), latency=0.05)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await first_question(pilot, app)
        backend = app.services.llm.backend()
        await pilot.press(*"la mitad")
        await wait_for(pilot, lambda: app.drafts.get(screen.draft_key) == "la mitad")
        asked = len(backend.calls)
        saves: list[int] = []  # the model calls made when the drafts file was written
        save = app.drafts._save
        app.drafts._save = lambda: (saves.append(len(backend.calls)), save())
        await pilot.press("enter")
        await wait_for(pilot, turns_done(screen, 3))
        # the sent answer's draft is gone, written while the model worked on the turn
        assert app.drafts.get(screen.draft_key) is None and saves
        assert all(calls > asked for calls in saves)


def gated_turns(monkeypatch, hold_before: str) -> asyncio.Event:
    """Turns whose events stop before the first `hold_before` event (`NodeFinished` of the
    executor, or the end of the runtime's stream after `Done`) until the returned gate opens;
    "written" holds the executor's update itself back."""
    import core.flows.tutor.session as session

    gate, turn = asyncio.Event(), session.turn

    async def gated(*args, **kwargs):
        async for event in turn(*args, **kwargs):
            if hold_before == "written" and is_executor_update(event):
                await gate.wait()  # the node's log, store and checkpoint writes, say
            if (
                hold_before == "reply"
                and getattr(event, "node", "") == "executor"
                and (type(event).__name__ == "NodeFinished")
            ):
                yield event
                await gate.wait()  # the runtime's last checkpoint, say, takes a while
                continue
            yield event
        if hold_before == "end":
            await gate.wait()  # the runtime lets go of the session (its lease), say, slowly

    monkeypatch.setattr(session, "turn", gated)
    return gate


def is_executor_update(event: object) -> bool:
    return type(event).__name__ == "NodeFinished" and getattr(event, "node", "") == "executor"


@asynccontextmanager
async def gated_session(tmp_path: Path, monkeypatch, hold_before: str):
    """(pilot, the tutor screen at its first question, the gate of its next turns)."""
    app = make_app(tmp_path, TutorScript(["partial"] * 3))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await first_question(pilot, app)
        yield pilot, screen, gated_turns(monkeypatch, hold_before)


async def answer_and_wait(pilot, screen: TutorScreen, condition) -> None:
    screen.query_one("#answer").value = "la mitad"
    await pilot.press("enter")
    await wait_for(pilot, condition)


async def test_the_reply_is_drawn_as_its_message_before_the_turn_is_written(
    tmp_path: Path, monkeypatch
) -> None:
    async with gated_session(tmp_path, monkeypatch, "reply") as (pilot, screen, gate):
        chat = screen.query_one(TutorChat)
        messages = chat.message_count
        # the executor finished: its message shows (drawn) while the runtime still works
        await answer_and_wait(pilot, screen, lambda: chat.message_count == messages + 3)
        assert chat.live is None and screen.busy
        assert chat.drawn_version == chat.version
        assert chat.text_lines()[-2].startswith("Tutor: Question 2")
        gate.set()
        await wait_for(pilot, lambda: not screen.busy)


async def test_the_reply_shows_as_its_message_before_its_node_is_written(
    tmp_path: Path, monkeypatch
) -> None:
    async with gated_session(tmp_path, monkeypatch, "written") as (pilot, screen, gate):
        chat = screen.query_one(TutorChat)
        messages = chat.message_count
        # the executor wrote its message; its node's writes have not ended: the message shows
        await answer_and_wait(pilot, screen, lambda: chat.message_count == messages + 3)
        assert chat.live is None and screen.busy and chat.drawn_version == chat.version
        assert chat.text_lines()[-2].startswith("Tutor: Question 2")
        gate.set()  # the node's update comes: the message it carries is not shown twice
        await wait_for(pilot, lambda: not screen.busy)
        assert chat.message_count == messages + 3 == len(screen.conversation)
        assert [m["content"] for m in screen.conversation].count(
            screen.conversation[-1]["content"]
        ) == 1


async def test_a_reply_shown_before_its_node_failed_goes_with_the_turn(
    tmp_path: Path, monkeypatch
) -> None:
    import core.flows.tutor.nodes as nodes

    app = make_app(tmp_path, TutorScript(["partial"] * 3))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await first_question(pilot, app)
        chat = screen.query_one(TutorChat)
        shown = count_calls(chat, "show_messages")

        def disk_full(*_args: object) -> None:
            raise OSError("disk full")

        # the executor's message was written and shown; storing its session then fails
        monkeypatch.setattr(nodes, "record_session", disk_full)
        await answer_and_wait(pilot, screen, lambda: shown[0] >= 3 and not screen.busy)
        stored = len(screen.conversation)
        assert [m["role"] for m in screen.conversation[-2:]] == ["student", "tutor"]
        assert chat.message_count == stored  # the reply the node never stored is gone
        assert not any(line.startswith("Tutor: Question 2") for line in chat.text_lines())


async def test_the_turn_ends_on_screen_when_the_runtime_reports_its_state(
    tmp_path: Path, monkeypatch
) -> None:
    async with gated_session(tmp_path, monkeypatch, "end") as (pilot, screen, gate):
        answer = screen.query_one("#answer")
        await answer_and_wait(pilot, screen, lambda: not screen.busy)
        assert answer.placeholder == PLACEHOLDER and len(screen.conversation) == 4
        # the next answer waits for the session's worker, and is not lost
        answer.value = "un cuarto"
        await pilot.press("enter")
        gate.set()
        await wait_for(pilot, lambda: len(screen.conversation) >= 7 and not screen.busy)
        assert screen.conversation[4]["content"] == "un cuarto"


async def test_what_the_first_reply_loaded_is_settled_once_not_every_turn(
    tmp_path: Path, monkeypatch
) -> None:
    """Full collections walked what the tutor screen loads on first use (its widgets, the
    Markdown renderer) on every later turn: collected once and frozen after the first reply
    (tui.heap), never per turn (frozen garbage would never be collected)."""
    import gc

    calls: list[str] = []
    monkeypatch.setattr(gc, "collect", lambda *args: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))  # (this process stays)
    app = make_app(tmp_path, TutorScript(["partial"] * 4), correct_to_complete=10)
    app.settles_heap = True  # as on a terminal
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await wait_for(pilot, lambda: calls == ["freeze"])  # once the services are open
        screen = await first_question(pilot, app)
        assert calls == ["freeze", "collect", "freeze"]
        for n, answer in enumerate(("la mitad", "un cuarto"), start=2):
            screen.query_one("#answer").value = answer
            await screen.query_one("#answer").action_submit()
            await wait_for(pilot, turns_done(screen, 2 * n - 1))
        assert calls == ["freeze", "collect", "freeze"]
