"""The tutor screen inside the real app shell with a scripted model: Pilot and snapshots."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from textual.app import App

from core.flows.tutor.graph import SPEC
from core.flows.tutor.sessions import list_sessions
from core.ingest import index_vault
from core.services import open_services
from core.settings import Settings, load_settings
from local_llm.testing import ScriptedBackend
from tests.flows.tutor.scripted import TutorScript
from tests.tui.helpers import wait_for as wait_until
from tui.app import NoemaApp
from tui.demo import sample_vault
from tui.screens.tutor import PLACEHOLDER, STOP_HINT, TutorScreen
from tui.widgets.tutor_chat import TutorChat
from tui.widgets.tutor_modals import LearnerModal, LogsModal, SessionsModal
from tui.widgets.tutor_plan import PlanPanel

SIZE = (130, 40)


def make_app(
    tmp_path: Path,
    script: TutorScript,
    latency: float = 0.0,
    backend_class: type[ScriptedBackend] = ScriptedBackend,
    **tutor: object,
) -> NoemaApp:
    root = tmp_path / "vault"
    if not root.exists():
        shutil.copytree(sample_vault(), root)
    settings = Settings(
        vault={"path": root}, data={"directory": tmp_path / "data"}, flows={"tutor": tutor}
    )
    backend = backend_class(script, latency_s=latency)
    services = open_services(settings, {"tutor": SPEC}, backend=backend)
    index_vault(settings, services.store)
    app = NoemaApp(settings, services=services, vault_label="sample-vault", watch=False)
    app.animation_level = "none"
    return app


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """helpers.wait_for with this screen's own default timeout."""
    await wait_until(pilot, condition, timeout)


async def open_tutor(pilot, app: NoemaApp) -> TutorScreen:
    await wait_for(pilot, lambda: app.services is not None)
    await pilot.press("t")
    screen = app.screen
    assert isinstance(screen, TutorScreen)
    subject = screen.query_one("#subject")
    await wait_for(pilot, lambda: len(subject._options) > 1)
    return screen


async def pick_retrieval(pilot, screen: TutorScreen) -> None:
    screen.query_one("#subject").value = "Psicología del aprendizaje"
    await wait_for(pilot, lambda: len(screen.query_one("#topic")._options) > 1)
    screen.query_one("#topic").value = "Memoria"
    await wait_for(pilot, lambda: len(screen.query_one("#subtopic")._options) > 1)
    screen.query_one("#subtopic").value = screen.query_one("#subtopic")._options[1][1]
    await pilot.click("#start")


async def first_question(pilot, app: NoemaApp) -> TutorScreen:
    """The tutor screen with a new session on retrieval practice, its first question asked."""
    screen = await open_tutor(pilot, app)
    await pick_retrieval(pilot, screen)
    await wait_for(pilot, turns_done(screen, 1))
    return screen


def turns_done(screen: TutorScreen, tutor_messages: int) -> Callable[[], bool]:
    def check() -> bool:
        tutors = [m for m in screen.conversation if m["role"] == "tutor"]
        return not screen.busy and len(tutors) >= tutor_messages

    return check


async def test_pick_learn_replan_and_finish(tmp_path: Path) -> None:
    script = TutorScript(["wrong", "wrong", "wrong", "right", "right"], steps=3)
    app = make_app(tmp_path, script)
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        chat = screen.query_one(TutorChat)
        assert chat.text_lines()[0].startswith("Tutor: Question 1")
        assert screen.values["topic_info"]["title"] == "Práctica de recuperación"
        panel = screen.query_one(PlanPanel)
        assert "1. P1 step 1" in str(panel.query_one("#steps").render())
        # hints toggle with a key
        assert panel.query_one("#hints").has_class("hidden")
        await pilot.press("ctrl+t")
        assert not panel.query_one("#hints").has_class("hidden")
        assert "count the slices" in str(panel.query_one("#hints").render())
        for n, answer in enumerate(["1/4", "1/4 again", "still 1/4"], 1):
            screen.query_one("#answer").value = answer
            await pilot.press("enter")
            await wait_for(pilot, turns_done(screen, 1 + 2 * n))
        assert "The plan changed" in str(panel.query_one("#notice").render())
        assert "Plan v2" in str(panel.query_one("#steps").render())
        for n, answer in enumerate(["1/2", "1/2 again"], 1):
            screen.query_one("#answer").value = answer
            await pilot.press("enter")
            # after the first answer the executor asks again; the second one ends the session
            await wait_for(pilot, turns_done(screen, 7 + 2 * n - (n == 2)))
        assert screen.values["is_complete"] and screen.values["outcome"] == "completed"
        summary = str(screen.query_one("#summary").render())
        assert "Steps completed: 2/2" in summary and "Saved as 11 - Tutoring/" in summary
        assert screen.query_one("#answer").disabled


async def test_the_screen_says_what_the_tutor_does_while_the_model_works(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript(["partial"]), latency=0.3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        answer, chat = screen.query_one("#answer"), screen.query_one(TutorChat)
        answer.value = "1/2 is bigger"
        await pilot.press("enter")
        checking = f"The tutor is checking your answer… ({STOP_HINT})"
        await wait_for(pilot, lambda: answer.placeholder == checking)
        # the answer left the box and entered the chat, with the block the reply will fill
        assert answer.value == "" and chat.text_lines()[-4:] == [
            "You: 1/2 is bigger",
            "",
            "Tutor: …",
            "",
        ]
        await wait_for(pilot, lambda: answer.placeholder == f"The tutor is writing… ({STOP_HINT})")
        assert any(line.startswith("Feedback:") for line in chat.text_lines())
        await wait_for(pilot, turns_done(screen, 3))
        assert answer.placeholder == PLACEHOLDER and chat.live is None


async def test_a_long_answer_is_typed_on_several_lines_and_sent_whole(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript(["partial"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        answer, chat = screen.query_one("#answer"), screen.query_one(TutorChat)
        assert answer.has_focus and "ctrl+j new line" in answer.border_subtitle
        await pilot.press(*"1/2 es mayor:", "ctrl+j", *"- 2 trozos", "ctrl+j", *"- no 4")
        await pilot.pause()
        assert answer.value == "1/2 es mayor:\n- 2 trozos\n- no 4" and not screen.busy
        draft = app.drafts.get(screen.draft_key)
        assert draft == answer.value  # kept as it is typed, lines and all
        await pilot.press("enter")
        await wait_for(pilot, turns_done(screen, 3))
        sent = [m["content"] for m in screen.conversation if m["role"] == "student"]
        assert sent == ["1/2 es mayor:\n- 2 trozos\n- no 4"]
        lines = chat.text_lines()
        start = lines.index("You: 1/2 es mayor:")
        assert lines[start : start + 3] == ["You: 1/2 es mayor:", "- 2 trozos", "- no 4"]
        assert answer.value == "" and app.drafts.get(screen.draft_key) is None


async def test_a_draft_of_several_lines_comes_back_whole(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript(["partial"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        session = screen.session_id
        await pilot.press(*"la mitad", "ctrl+j", *"creo")
        await pilot.press("escape")  # back home: the session and its draft wait
        await pilot.pause()
        app.open_session(session)
        await wait_for(
            pilot, lambda: app.screen is not screen and bool(app.screen.query("#answer"))
        )
        box = app.screen.query_one("#answer")
        await wait_for(pilot, lambda: box.value == "la mitad\ncreo")
        await pilot.press("ctrl+j", *"seguro")  # it goes on where it stopped
        assert box.value == "la mitad\ncreo\nseguro"


async def test_a_concept_note_found_by_typing_starts_a_session(tmp_path: Path) -> None:
    from tui.widgets.concept_search import ConceptSearch

    app = make_app(tmp_path, TutorScript())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tutor(pilot, app)
        search = screen.query_one(ConceptSearch)
        await wait_for(pilot, lambda: len(search.concepts) > 5)
        search.query_one("#concept-query").focus()
        await pilot.press(*"practica recup")  # no accents, half a word
        await wait_for(pilot, lambda: search.matched == "practica recup")
        assert search.matches[0].title == "Práctica de recuperación"
        await pilot.press("enter")
        await wait_for(pilot, turns_done(screen, 1))
        assert screen.query_one("#picker").has_class("hidden")
        assert "Práctica de recuperación" in screen.values["topic_info"]["title"]


async def test_the_picker_opens_with_the_cursor_in_the_concept_search(tmp_path: Path) -> None:
    """In the walk the focus was on the subject list: "Metacog" typed on the new screen and
    its `e` opened the rubric screen. Also after ctrl+n (a new session)."""
    from tui.widgets.concept_search import ConceptSearch

    app = make_app(tmp_path, TutorScript())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tutor(pilot, app)
        search = screen.query_one(ConceptSearch)
        await wait_for(pilot, lambda: len(search.concepts) > 5)
        await pilot.press(*"Metacog")
        assert app.screen is screen
        await wait_for(pilot, lambda: search.matched == "Metacog")
        await pilot.press("down", "enter")
        await wait_for(pilot, turns_done(screen, 1))
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press(*"retr")
        assert app.screen is screen and search.query_one("#concept-query").value == "retr"


async def test_ctrl_s_exports_the_conversation_to_a_file_the_learner_names(tmp_path: Path) -> None:
    from tui.widgets.tutor_modals import ExportModal

    app = make_app(tmp_path, TutorScript(["partial"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        await pilot.press(*"la mitad", "enter")
        await wait_for(pilot, turns_done(screen, 3))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportModal))
        box = app.screen.query_one("#export-path")
        assert box.value.endswith(".md") and "Práctica de recuperación" in box.value
        taken = tmp_path / "taken.md"
        taken.write_text("mine", encoding="utf-8")
        box.value = str(taken)
        await pilot.press("enter")  # exists: said, the dialog stays
        await pilot.pause()
        assert isinstance(app.screen, ExportModal) and taken.read_text(encoding="utf-8") == "mine"
        assert "exists" in str(app.screen.query_one("#export-error").render())
        box.value = str(tmp_path / "sesión")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        text = (tmp_path / "sesión.md").read_text(encoding="utf-8")
        assert "> la mitad" in text and "**You**" in text and "> Question 2" in text


async def test_tokens_wait_behind_the_events_before_them(tmp_path: Path) -> None:
    from tui.screens.tutor_turns import TutorEvents

    app = make_app(tmp_path, TutorScript())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tutor(pilot, app)
        chat = screen.query_one(TutorChat)
        chat.expect_reply()
        screen._buffer_token("Question ")  # every event handled: straight to the chat
        assert chat.streamed == "Question " and screen._tokens == []
        screen._posted += 1  # a batch of events is on its way to the screen
        screen.post_message(TutorEvents([]))
        screen._buffer_token("two")
        screen._buffer_token("?")
        assert chat.streamed == "Question " and screen._tokens == ["two", "?"]
        await pilot.pause()  # the events first, then the tokens that came after them
        assert chat.streamed == "Question two?" and screen._handled == screen._posted


async def test_resume_a_session_and_read_its_logs(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript(["wrong"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        session = screen.session_id
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, LogsModal)
        assert "PLANNER" in str(app.screen.query_one("#log").render())
        app.screen.query_one("#agent").value = "executor"
        await pilot.pause()
        text = str(app.screen.query_one("#log").render())
        assert "EXECUTOR" in text and "PLANNER" not in text
        await pilot.press("escape")
        await pilot.press("ctrl+n")
        assert screen.session_id is None and not screen.query_one("#picker").has_class("hidden")
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, SessionsModal)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.session_id == session and screen.conversation)
        await wait_for(pilot, lambda: screen.query_one(TutorChat).message_count == 1)
        assert [s.id for s in list_sessions(app.services.store)] == [session]


async def test_enter_on_a_session_in_the_runs_table_resumes_it(tmp_path: Path) -> None:
    from tui.widgets import RunsTable

    app = make_app(tmp_path, TutorScript(["partial"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        session = screen.session_id
        await pilot.press("escape")  # back home: the session is a done run in the table
        table = app.screen.query_one(RunsTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        table.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TutorScreen))
        resumed = app.screen
        await wait_for(pilot, lambda: resumed.query_one(TutorChat).message_count == 1)
        assert resumed.session_id == session
        resumed.query_one("#answer").value = "1/2"
        await pilot.press("enter")
        await wait_for(pilot, turns_done(resumed, 3))  # and the chat goes on from there


async def test_learner_profile_is_edited_and_saved(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "user-settings.toml"
    monkeypatch.setenv("NOEMA_SETTINGS", str(path))
    app = make_app(tmp_path, TutorScript())
    async with app.run_test(size=SIZE) as pilot:
        await open_tutor(pilot, app)
        await pilot.press("f2")
        modal = app.screen
        assert isinstance(modal, LearnerModal)
        modal.query_one("#learner-name").value = "Ana"
        modal.query_one("#learner-interests").value = "chess, cooking"
        await pilot.click("#save")
        await pilot.pause()
    assert app.settings.flows.tutor.learner.name == "Ana"
    saved = load_settings(path)
    assert saved.flows.tutor.learner.interests == ["chess", "cooking"]


async def test_home_shows_what_is_due_with_its_trend(tmp_path: Path) -> None:
    from core.flows.tutor.sessions import record_mastery
    from tests.flows.tutor.test_plan import make_plan
    from tui.screens.progress import ProgressScreen
    from tui.widgets.mastery_chart import PracticeList, TrendRow

    app = make_app(tmp_path, TutorScript())
    concepts = [{"id": "c1", "title": "Práctica de recuperación"}, {"id": "c2", "title": "ZDP"}]
    from core.store import Store

    store = Store(app.settings.store_path)
    for statuses in (("pending", "pending"), ("completed", "pending")):
        state = {"topic_info": {"concepts": concepts}, "study_plan": make_plan(*statuses)}
        record_mastery(store, "s1", state)
    store.close()
    async with app.run_test(size=SIZE) as pilot:
        panel = app.screen.query_one(PracticeList)
        await wait_for(pilot, lambda: len(panel.query(TrendRow)) == 2)
        rows = list(panel.query(TrendRow))
        assert [r.item.title for r in rows] == ["Práctica de recuperación", "ZDP"]
        assert rows[0].values == [0.0, 0.5] and rows[0].item.mastery == 0.5
        assert "p: progress" in str(panel.border_subtitle)
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, ProgressScreen))


class ChatApp(App):
    """The chat alone, to watch how a streamed reply is drawn."""

    def compose(self):
        yield TutorChat()


STUDENT = {"role": "student", "content": "1/4"}
FEEDBACK = {"role": "tutor", "kind": "feedback", "content": "Close: count the slices."}


def is_muted(chat: TutorChat) -> bool:
    """Whether the live block's words carry its muted style (what streams, still muted); the
    "Tutor: " label keeps its own."""
    words = [s for line in chat.live_lines for s in line if s.text.strip()]
    label, *rest = words
    return bool(rest) and all(s.style.dim for s in rest) and not label.style.dim


async def test_reply_streams_into_its_block_and_becomes_the_message() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.expect_reply([STUDENT])  # the answer and the reply block, shown together
        await pilot.pause()
        assert chat.text_lines() == ["You: 1/4", "", "Tutor: …", ""]
        assert is_muted(chat) and chat.message_count == 1
        # the evaluator's feedback arrives while the reply block waits: it goes above it
        chat.show_messages([STUDENT, FEEDBACK])
        await pilot.pause()
        assert chat.text_lines()[2:] == ["Feedback: Close: count the slices.", "", "Tutor: …", ""]
        for token in ["Question 2: ", "what is ", "bigger?\n"]:
            chat.stream(token)
        await pilot.pause()
        assert chat.text_lines()[-2] == "Tutor: Question 2: what is bigger?"
        assert is_muted(chat)
        assert chat.drawn_version >= chat.first_token_version > 0  # the tokens were drawn
        reply = {"role": "tutor", "kind": "teaching", "content": "Question 2: what is bigger?"}
        lines = chat.virtual_size.height
        chat.show_messages([STUDENT, FEEDBACK, reply])
        await pilot.pause()
        # the block gave way to the message: same lines, no longer muted, nothing streamed left
        assert chat.text_lines()[-2] == "Tutor: Question 2: what is bigger?"
        assert chat.live is None and chat.streamed == "" and chat.message_count == 3
        assert chat.virtual_size.height == lines


async def test_reply_block_grows_with_the_text_and_goes_when_no_message_comes() -> None:
    app = ChatApp()
    async with app.run_test(size=(40, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.expect_reply()
        await pilot.pause()
        assert chat.virtual_size.height == 2  # "Tutor: …" and the blank line after it
        for _ in range(12):
            chat.stream("slices ")  # 84 characters: three lines or more at this width
        await pilot.pause(0.05)  # later tokens are drawn on the next frame
        assert chat.virtual_size.height >= 4
        assert "".join(chat.text_lines()).replace(" ", "") == "Tutor:" + "slices" * 12
        chat.end_stream()  # the turn failed before its message
        await pilot.pause()
        assert chat.text_lines() == [] and chat.virtual_size.height == 0


async def test_a_long_conversation_is_lines_not_widgets_and_follows_its_end() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        conversation = [
            {"role": "tutor" if n % 2 else "student", "content": f"message {n}"} for n in range(200)
        ]
        chat.show_messages(conversation)
        await pilot.pause()
        assert len(chat.children) == 0 and chat.message_count == 200
        assert chat.virtual_size.height == 400
        assert chat.scroll_y == chat.max_scroll_y > 0  # the view follows the end
        shown = [
            chat.render_line(y).text.rstrip() for y in range(chat.scrollable_content_region.height)
        ]
        assert "Tutor: message 199" in shown
        # the learner scrolls up to read: new messages do not pull the view down
        chat.scroll_to(y=10, animate=False, immediate=True)
        chat.show_messages([*conversation, {"role": "tutor", "content": "message 200"}])
        await pilot.pause()
        assert chat.scroll_y == 10 and chat.virtual_size.height == 402


async def test_messages_are_wrapped_again_when_the_width_changes() -> None:
    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.show_messages([{"role": "tutor", "content": "word " * 30}])
        await pilot.pause()
        wide = chat.virtual_size.height
        await pilot.resize_terminal(40, 20)
        await pilot.pause()
        assert chat.virtual_size.height > wide
        assert all(len(line) <= chat.scrollable_content_region.width for line in chat.text_lines())


async def test_the_view_stays_at_the_end_when_the_chat_gets_shorter_or_narrower() -> None:
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        chat = app.query_one(TutorChat)
        chat.show_messages([{"role": "tutor", "content": f"mensaje {n} " * 6} for n in range(60)])
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y > 0
        chat.styles.height = 12  # the answer box below grew: the chat is shorter
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y
        await pilot.resize_terminal(50, 30)  # narrower: more lines
        await pilot.pause()
        assert chat.scroll_y == chat.max_scroll_y
        chat.scroll_to(y=5, animate=False, immediate=True)  # the learner reads further up
        chat.styles.height = 8
        await pilot.pause()
        assert chat.scroll_y == 5  # not pulled down


async def test_text_in_the_chat_can_be_selected_and_copied() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.show_messages([STUDENT, FEEDBACK])
        await pilot.pause()
        # drag across "Feedback: Close" (the chat's border and padding put it at x=2, y=3)
        await pilot.mouse_down(chat, offset=(2, 3))
        await pilot.hover(chat, offset=(16, 3))
        await pilot.mouse_up(chat, offset=(16, 3))
        await pilot.pause()
        assert app.screen.get_selected_text() == "Feedback: Close"
        line = chat.render_line(2)
        highlight = app.screen.get_component_rich_style("screen--selection")
        selected = "".join(s.text for s in line if s.style and highlight.bgcolor == s.style.bgcolor)
        assert selected == "Feedback: Close"


async def test_a_reply_is_rendered_as_markdown_while_it_streams() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 20)) as pilot:
        chat = app.query_one(TutorChat)
        chat.expect_reply([STUDENT])
        for token in ["**Idea", " clave**: usa `x`", "\n\n- uno\n- d"]:
            chat.stream(token)
            await pilot.pause(0.05)
        assert chat.text_lines()[2:] == ["Tutor: Idea clave: usa x", "", " • uno", " • d", ""]
        assert is_muted(chat)
        chat.stream("os\n")
        await pilot.pause(0.05)
        assert chat.text_lines()[-2] == " • dos"
        reply = {"role": "tutor", "content": "**Idea clave**: usa `x`\n\n- uno\n- dos"}
        lines = chat.text_lines()
        chat.show_messages([STUDENT, reply])
        await pilot.pause()
        assert chat.text_lines() == lines and chat.live is None  # the same lines, settled


class MarkdownTutor(TutorScript):
    """A tutor that asks in Markdown: a heading, emphasis, a table, a list and code."""

    QUESTION = (
        "## Comparar fracciones\n\nPiensa en una **pizza** 🍕 cortada en `2` y en `4`:\n\n"
        "| fracción | porciones |\n|---|---:|\n| 1/2 | 2 |\n| 1/4 | 4 |\n\n"
        "- ¿Cuál porción es *más grande*?\n- ¿Por qué?\n\n"
        "```python\nprint(1/2 > 1/4)  # True\n```\nHint: count the slices\n"
    )

    def __call__(self, messages, schema):
        answer = super().__call__(messages, schema)
        return self.QUESTION if isinstance(answer, str) else answer


class HangingStream(ScriptedBackend):
    """Streams the first `hang_after` chunks of a reply, then waits (a slow model)."""

    hang_after: int | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, stream_chunk=4, **kwargs)

    async def stream(self, messages, *, config):
        import asyncio

        sent = 0
        async for piece in super().stream(messages, config=config):
            if self.hang_after is not None and sent >= self.hang_after:
                await asyncio.sleep(600)
            sent += 1
            yield piece


async def test_escape_stops_a_streaming_reply_and_the_session_goes_on(tmp_path: Path) -> None:
    app = make_app(tmp_path, TutorScript(["wrong", "right"], steps=2), backend_class=HangingStream)
    backend = app._injected.llm.backend()
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        chat = screen.query_one(TutorChat)
        backend.hang_after = 3
        screen.query_one("#answer").value = "1/4"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(chat.streamed) >= 12)
        streamed = chat.streamed
        await pilot.press("escape")  # stops the reply: the screen stays
        await wait_for(pilot, lambda: not screen.busy)
        assert app.screen is screen
        last = screen.conversation[-1]
        assert last["role"] == "tutor" and last.get("stopped") is True
        assert last["content"] == streamed.strip() == "Question 2: "[: len(streamed)].strip()
        assert any(line.endswith("[stopped]") for line in chat.text_lines())
        assert app.services.runtime.runs.get(screen.session_id).status == "done"
        # the session goes on: the next answer gets a whole reply
        backend.hang_after = None
        screen.query_one("#answer").value = "1/2"
        await pilot.press("enter")
        await wait_for(pilot, turns_done(screen, 3))
        assert not screen.conversation[-1].get("stopped")
        await pilot.press("escape")  # nothing streams now: back home
        await wait_for(pilot, lambda: app.screen is not screen)


async def test_a_plan_built_from_the_concept_is_said_on_the_screen(tmp_path: Path) -> None:
    """Issue 12: the bundled model's plans were field names; the session starts from the
    concept and the learner reads why."""

    class FieldNames(TutorScript):
        def plan(self, schema):
            answer = super().plan(schema)
            return answer | {"titles": ["title"] * len(answer["titles"])}

    app = make_app(tmp_path, FieldNames())
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_question(pilot, app)
        panel = screen.query_one(PlanPanel)
        assert "plan was unusable" in str(panel.query_one("#notice").render())
        steps = str(panel.query_one("#steps").render())
        assert "1. Recall: " in steps or "1. Explain: " in steps
        assert "1. title" not in steps


async def test_the_header_names_the_concept_while_the_tutor_plans(tmp_path: Path) -> None:
    """The header read "Tutor ·" with nothing after it until the plan existed (issue 12)."""
    app = make_app(tmp_path, TutorScript(["right"]), latency=0.5)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tutor(pilot, app)
        await pick_retrieval(pilot, screen)
        await wait_for(pilot, lambda: screen.session_id is not None and screen.busy)
        assert not screen.values.get("study_plan")  # the planner is still at work
        assert screen.sub_title == "Tutor · Práctica de recuperación"
        await wait_for(pilot, turns_done(screen, 1))
        assert screen.sub_title == "Tutor · Práctica de recuperación"
