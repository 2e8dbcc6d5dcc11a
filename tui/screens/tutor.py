"""The tutor screen: pick a subtopic (or a concept), then learn in a chat with a live plan.

The session's turns run in one worker (`TurnRelay`, in tutor_turns.py) that hands their events
to the screen while the model works: tokens stream into the chat, the plan beside it shows live
step statuses and a notice when it changes, and the summary appears at the end. Sessions can be
resumed (ctrl+r) and their agent logs read (ctrl+l); the learner profile is edited with F2 and
saved to the settings file.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Static, TextArea

from core.events import Failed, NodeFinished, Progress, RunEvent
from core.settings.loader import SettingsTable
from tui.frames import draw_now
from tui.heap import settle_heap_again
from tui.keys import key_for
from tui.messages import ServicesReady
from tui.screens.base import NoemaScreen
from tui.screens.tutor_turns import TurnEnded, TurnRelay
from tui.widgets.answer_box import AnswerBox
from tui.widgets.banner import MechanicsBanner
from tui.widgets.mastery_chart import PracticeList
from tui.widgets.model_activity import ModelActivityLine
from tui.widgets.tutor_chat import TutorChat
from tui.widgets.tutor_modals import ExportModal, LearnerModal, LogsModal, SessionsModal
from tui.widgets.tutor_picker import LessonPicker
from tui.widgets.tutor_plan import PlanPanel
from vault.titles import note_title

PLACEHOLDER = "Your answer"
STOP_HINT = "esc stops the reply"


class TutorScreen(TurnRelay, NoemaScreen):
    """Tutoring: pickers, chat, plan, hints, summary."""

    DEFAULT_CSS = """
    TutorScreen #tutor-body { height: 1fr; }
    TutorScreen #chat-column { width: 1fr; }
    TutorScreen #answer { margin: 0 0 0 0; }
    TutorScreen #summary { height: auto; border: round $success; padding: 0 1; }
    TutorScreen .hidden { display: none; }
    TutorScreen #tutor-side { width: 44; }
    """
    BINDINGS = [
        Binding("ctrl+t", "toggle_hints", "Hints", id="tutor.hints"),
        Binding("ctrl+r", "sessions", "Sessions", id="tutor.sessions"),
        Binding("ctrl+l", "logs", "Logs", id="tutor.logs", show=False),  # room for q Quit
        Binding("ctrl+n", "new_session", "New", id="tutor.new"),
        Binding("f2", "learner", "Learner", id="tutor.learner"),
        Binding("ctrl+s", "export", "Export", id="tutor.export"),
        Binding("f3", "progress", "Progress", id="tutor.progress", show=False),
        Binding("escape", "back", "Back", id="tutor.back"),  # while a turn runs: stop it
    ]
    HELP_KEYS = [
        ("enter", "in the answer box: send the answer"),
        (
            "ctrl+j",
            "in the answer box: a new line (shift+enter or alt+enter too, where "
            "the terminal tells them from enter)",
        ),
        ("esc", "while the tutor writes: stop the reply (what came stays)"),
    ]

    def __init__(self, session_id: str | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.conversation: list[dict[str, Any]] = []
        self.values: dict[str, Any] = {}
        self.busy = False
        self._submitted: str | None = None
        self._heap_settled = False
        """Whether what the first reply loaded is out of full collections (tui.heap)."""
        self.init_relay()

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield MechanicsBanner()
        yield LessonPicker(id="picker")
        with Horizontal(id="tutor-body"):
            with Vertical(id="chat-column"):
                yield TutorChat(id="chat")
                yield Static("", id="summary", classes="hidden")
                yield ModelActivityLine(lambda: self.session_id)
                yield AnswerBox(PLACEHOLDER, id="answer", disabled=True)
            with Vertical(id="tutor-side"):
                yield PlanPanel(id="plan")
                yield PracticeList(id="tutor-practice")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Tutor"
        if self.services is not None:
            self.on_services_ready(ServicesReady())

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.load_choices()
        if self.session_id:
            self.open_session(self.session_id)

    # -- choosing what to learn -----------------------------------------------------------------

    @work(exclusive=True, group="tutor-choices", exit_on_error=False)
    async def load_choices(self) -> None:
        from core.curriculum import list_concepts
        from core.flows.tutor.session import curriculum

        services = self.services
        if services is None or services.vault is None:
            self.notify("no vault configured: the tutor needs a curriculum", severity="warning")
            return
        lessons = await asyncio.to_thread(curriculum, services.vault, services.store)
        concepts = await asyncio.to_thread(list_concepts, services.store)
        self.query_one(LessonPicker).load(lessons, concepts)
        self.load_practice()
        if not self.session_id:
            self.focus_concept_search()

    def focus_concept_search(self) -> None:
        """The picker opens with the cursor in the concept search: typing a title there is
        what the screen asks for (from the subject list, "Metacog" typed on and its `e`
        opened the rubric screen)."""
        self.query_one("#concept-query").focus()

    @on(LessonPicker.Chosen)
    def _chosen(self, message: LessonPicker.Chosen) -> None:
        from core.flows.tutor.session import concept_session_lesson, start_session

        services = self.require_services()
        lesson = message.lesson or concept_session_lesson(
            services.vault, services.store, message.concept_id
        )
        record = start_session(services.runtime, lesson, self.app.settings)
        self.open_session(record.id)

    # -- a session -------------------------------------------------------------------------

    @work(exclusive=True, group="tutor-open", exit_on_error=False)
    async def open_session(self, session_id: str) -> None:
        """Show a session (new or resumed) and run its pending turn, if any."""
        from core.flows.tutor.session import needs_retry, session_values

        self.session_id = session_id
        self.query_one(LessonPicker).add_class("hidden")
        chat = self.query_one(TutorChat)
        chat.clear_all()
        runtime = self.require_services().runtime
        values = await session_values(runtime, session_id)
        self.conversation = list(values.get("conversation") or [])
        self.query_one(AnswerBox).value = self.app.drafts.get(self.draft_key) or ""
        self.show_state(values)
        self.run_session(session_id, retry=needs_retry(runtime, session_id))

    def show_state(self, values: dict[str, Any]) -> None:
        self.values = values
        info = values.get("topic_info") or {}
        self.sub_title = f"Tutor · {info.get('title') or 'planning…'}"
        self.query_one(TutorChat).show_messages(self.conversation)
        panel = self.query_one(PlanPanel)
        panel.show_plan(values.get("study_plan"), float(values.get("mastery") or 0.0))
        teaching = (m for m in reversed(self.conversation) if m.get("kind") == "teaching")
        hints: list[str] | None = next((m.get("hints") for m in teaching), [])
        panel.show_hints(hints or [])
        answer = self.query_one(AnswerBox)
        complete = bool(values.get("is_complete"))
        if answer.disabled != complete:
            answer.disabled = complete
        self.load_practice()
        if complete:
            self.show_summary(values.get("summary") or {})
        elif not self.busy and not answer.has_focus:
            answer.focus()

    def show_summary(self, summary: dict[str, Any]) -> None:
        from core.flows.tutor.summary import summary_text

        widget = self.query_one("#summary", Static)
        note = f"\nSaved as {summary['note_path']}" if summary.get("note_path") else ""
        widget.update("Session summary\n" + summary_text(summary) + note)
        widget.remove_class("hidden")

    @on(AnswerBox.Submitted, "#answer")
    def _answer(self, event: AnswerBox.Submitted) -> None:
        from core.flows.tutor.session import student_message

        text = event.value.strip()
        if not text or self.busy or not self.session_id:
            return
        # the model call goes first: the answer leaves the box and enters the chat together,
        # drawn while the model works (`show_working`), or when the turn ends if it fails first
        if not self.send_answer(text):
            return
        self._submitted = event.value  # its draft goes when it leaves the box
        self.conversation.append(student_message(text))
        self.busy = True

    @property
    def draft_key(self) -> str:
        """Where the answer being typed is kept until it is sent (`tui.drafts`)."""
        return f"tutor.answer:{self.session_id}"

    @on(TextArea.Changed, "#answer")
    def _keep_draft(self, event: TextArea.Changed) -> None:
        text = event.text_area.text
        if self.session_id and text != self._submitted:
            self.app.drafts.keep(self.draft_key, text)

    def work_in_progress(self) -> list[tuple[str | None, str]]:
        """A turn the model is working on (what quitting would interrupt)."""
        if not self.busy or not self.session_id:
            return []
        topic = (self.values.get("topic_info") or {}).get("title", "")
        return [
            (
                self.session_id,
                f"a tutor turn on {topic or 'a session'} (session {self.session_id[:8]})",
            )
        ]

    def _clear_submitted(self) -> None:
        """Empty the answer box of the answer just sent (not of anything typed since), and
        forget its draft: here, while the model works, not as it is sent (saving the drafts
        writes a file, and the turn waits on nothing it does not need)."""
        answer = self.query_one(AnswerBox)
        if self._submitted is not None and answer.value == self._submitted:
            answer.value = ""
            self.app.drafts.discard(self.draft_key)
        self._submitted = None

    def show_working(self, doing: str) -> None:
        """An agent waits on the model: what it does, and (once a turn) the learner's answer
        with a line where the reply will stream."""
        self.query_one(AnswerBox).placeholder = f"The tutor is {doing}… ({STOP_HINT})"
        chat = self.query_one(TutorChat)
        if not chat.awaiting_reply:
            self._clear_submitted()
            self.query_one(PlanPanel).notice("")
            chat.expect_reply(self.conversation)

    def show_event(self, event: RunEvent) -> None:
        chat, panel = self.query_one(TutorChat), self.query_one(PlanPanel)
        if isinstance(event, Progress) and event.data.get("working"):
            self.show_working(str(event.data.get("message") or "thinking"))
        elif isinstance(event, Progress) and event.data.get("done"):  # the reply's text
            self.show_reply(event.data.get("reply"))
        elif isinstance(event, Progress) and event.data.get("replanned"):
            panel.notice("The plan changed to suit you better.")
            panel.show_plan(event.data.get("plan"), float(self.values.get("mastery") or 0.0))
        elif isinstance(event, Progress) and event.data.get("notice"):  # the model's plan unusable
            panel.notice(str(event.data["notice"]))
            panel.show_plan(event.data.get("plan"), float(self.values.get("mastery") or 0.0))
        elif isinstance(event, NodeFinished):
            if "study_plan" in event.update:
                panel.show_plan(event.update["study_plan"], float(event.update.get("mastery", 0)))
            added = self.not_shown(event.update.get("conversation") or [])
            if added:
                self.conversation.extend(added)
                chat.show_messages(self.conversation)
        elif isinstance(event, Failed):
            self.notify(f"the turn failed: {event.error}", severity="error", timeout=10)

    def on_turn_ended(self, message: TurnEnded) -> None:
        with self.app.batch_update():
            self.busy = False
            self._clear_submitted()
            self.query_one(AnswerBox).placeholder = PLACEHOLDER
            self.conversation = list(message.values.get("conversation") or [])
            if self._early_reply is not None:  # shown, but the turn failed before storing it
                self._early_reply = None
                self.query_one(TutorChat).clear_all()
            self.show_state(message.values)
            self.query_one(TutorChat).end_stream()  # a reply line no message came into
        # the learner waits on this frame: do not wait for the frame grid (the chat was drawn
        # when the reply's message came, unless the turn changed it since)
        chat = self.query_one(TutorChat)
        changed = chat.changed_region if chat.version != chat.drawn_version else None
        draw_now(self, *filter(None, [changed, self.query_one("#answer").region]))
        if not self._heap_settled and self.app.settles_heap:  # (the learner reads the reply)
            self._heap_settled = True
            settle_heap_again()

    # -- stopping a reply ------------------------------------------------------------------

    def action_back(self) -> None:
        """While a turn runs, escape stops the reply (what streamed stays); else back."""
        if self.busy and self.session_id and self.services is not None:
            self.stop_reply()
        else:
            super().action_back()

    def stop_reply(self) -> None:
        """Stop the turn under way: the model call is aborted, what streamed stays in the
        conversation marked stopped, and the session waits for the learner's next message."""
        session_id = self.session_id
        if session_id is None:
            return
        streamed = self.query_one(TutorChat).streamed + "".join(self._tokens)
        self.require_services().runtime.stop(session_id)
        turns = [w for w in self.workers if w.node is self and w.group == "tutor-turn"]
        self.stop_session()
        self.finish_stop(session_id, streamed, turns)

    @work(exclusive=True, group="tutor-stop", exit_on_error=False)
    async def finish_stop(self, session_id: str, streamed: str, turns: list[Any]) -> None:
        from core.flows.tutor.session import session_values, stop_turn

        for worker in turns:  # the cancelled turn unwinds before its state is touched
            with contextlib.suppress(Exception):
                await worker.wait()
        runtime = self.require_services().runtime
        await stop_turn(runtime, session_id, streamed)
        self.post_message(TurnEnded(await session_values(runtime, session_id)))
        self.notify("reply stopped; answer when you are ready", title="Tutor")
        self.run_session(session_id, retry=False)

    # -- mastery over time -----------------------------------------------------------------

    @work(exclusive=True, group="tutor-practice", exit_on_error=False)
    async def load_practice(self) -> None:
        """Beside the plan: the session's concepts and subtopic across sessions, or (choosing
        what to learn) what is due for practice."""
        from core.flows.tutor.progress import due_with_history, session_progress

        store, info = self.require_services().store, self.values.get("topic_info")
        if self.session_id and info:
            items = await asyncio.to_thread(session_progress, store, info)
            title = "Across sessions"
        else:
            items, title = await asyncio.to_thread(due_with_history, store, 3), ""
        hint = f"{key_for(self, 'tutor.progress')}: progress"
        self.query_one(PracticeList).show(items, hint, title)

    def action_progress(self) -> None:
        """Mastery over time, on the session's subtopic (or concept) when there is one."""
        from core.flows.tutor.progress import session_items
        from tui.screens.progress import ProgressScreen

        items = session_items(self.values.get("topic_info") or {}) if self.session_id else []
        focus = (items[-1][0], items[-1][1]) if items else None
        self.app.push_screen(ProgressScreen(focus))

    # -- actions ---------------------------------------------------------------------------

    def action_toggle_hints(self) -> None:
        self.query_one(PlanPanel).toggle_hints()

    def action_new_session(self) -> None:
        self.stop_session()
        self.session_id = None
        self.conversation = []
        self.query_one(TutorChat).clear_all()
        self.query_one("#summary", Static).add_class("hidden")
        self.query_one(PlanPanel).show_plan(None, 0.0)
        self.query_one(AnswerBox).disabled = True
        self.query_one(LessonPicker).remove_class("hidden")
        self.load_practice()
        self.focus_concept_search()

    def action_sessions(self) -> None:
        from core.flows.tutor.sessions import list_sessions

        if self.services is None:
            return

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.query_one("#summary", Static).add_class("hidden")
                self.open_session(session_id)

        self.app.push_screen(SessionsModal(list_sessions(self.services.store)), chosen)

    def action_logs(self) -> None:
        if not self.session_id:
            self.notify("no session open", severity="warning")
            return
        store = self.services.store if self.services is not None else None
        self.app.push_screen(LogsModal(self.app.settings.data_dir, self.session_id, store))

    def action_export(self) -> None:
        """The conversation so far (with its summary and plan) to a Markdown file."""
        from core.flows.tutor.export import ExportError, export_session

        if not self.session_id or not self.values:
            self.notify("no session open", severity="warning")
            return
        values = {**self.values, "conversation": list(self.conversation)}
        session_id, vault = self.session_id, getattr(self.services, "vault", None)
        topic = (values.get("topic_info") or {}).get("title") or "session"
        suggested = str(Path.cwd() / f"{note_title(topic)} {session_id[:8]}.md")

        def write(path: str) -> str:
            try:
                return str(export_session(values, session_id, Path(path), vault))
            except (ExportError, OSError) as exc:
                raise ValueError(str(exc)) from exc

        def done(written: str | None) -> None:
            if written:
                self.notify(f"conversation exported to {written}", title="Tutor")

        self.app.push_screen(ExportModal(suggested, write), done)

    def action_learner(self) -> None:
        profile = self.app.settings.flows.tutor.learner.model_dump()
        self.app.push_screen(LearnerModal(profile), self.save_learner)

    def save_learner(self, values: dict[str, Any] | None) -> None:
        """Keep the edited profile in the running settings and the user's settings file."""
        from core.settings.flows import LearnerProfile
        from tui.choices import save_choice

        if values is None:
            return
        try:
            profile = LearnerProfile(**values)
        except ValueError as exc:
            self.notify(f"profile not saved: {exc}", severity="error")
            return
        update: SettingsTable = {"flows": {"tutor": {"learner": profile.model_dump()}}}
        save_choice(self.app, update, "learner profile")


def open_screen(app: Any) -> TutorScreen:
    """The factory the app's screen registry calls."""
    return TutorScreen()


def session_screen(app: Any, run: Any) -> TutorScreen:
    """The factory the app's session registry calls: the screen with that session open."""
    return TutorScreen(run.id)
