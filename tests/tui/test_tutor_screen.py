"""The tutor screen inside the real app shell with a scripted model: Pilot and snapshots."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from core.flows.tutor.graph import SPEC
from core.flows.tutor.sessions import list_sessions
from core.ingest import index_vault
from core.services import open_services
from core.settings import Settings, load_settings
from local_llm.testing import ScriptedBackend
from tests.flows.tutor.scripted import TutorScript
from tests.tui.conftest import wait_for as wait_until
from tui.app import NoemaApp
from tui.demo import sample_vault
from tui.screens.tutor import TutorScreen
from tui.widgets.tutor_chat import TutorChat
from tui.widgets.tutor_modals import LearnerModal, LogsModal, SessionsModal
from tui.widgets.tutor_plan import PlanPanel

SIZE = (130, 40)


def make_app(
    tmp_path: Path, script: TutorScript, latency: float = 0.0, **tutor: object
) -> NoemaApp:
    root = tmp_path / "vault"
    if not root.exists():
        shutil.copytree(sample_vault(), root)
    settings = Settings(
        vault={"path": root}, data={"directory": tmp_path / "data"}, flows={"tutor": tutor}
    )
    backend = ScriptedBackend(script, latency_s=latency)
    services = open_services(settings, {"tutor": SPEC}, backend=backend)
    index_vault(settings, services.store)
    app = NoemaApp(settings, services=services, vault_label="sample-vault", watch=False)
    app.animation_level = "none"
    return app


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """conftest.wait_for with this screen's own default timeout."""
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
        checking = "The tutor is checking your answer…"
        await wait_for(pilot, lambda: answer.placeholder == checking)
        # the answer left the box and entered the chat, with the block the reply will fill
        assert answer.value == "" and chat.text_lines()[-4:] == [
            "You: 1/2 is bigger",
            "",
            "Tutor: …",
            "",
        ]
        await wait_for(pilot, lambda: answer.placeholder == "The tutor is writing…")
        assert any(line.startswith("Feedback:") for line in chat.text_lines())
        await wait_for(pilot, turns_done(screen, 3))
        assert answer.placeholder == "Your answer (Enter to send)" and chat.live is None


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
