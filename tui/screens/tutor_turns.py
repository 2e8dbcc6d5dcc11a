"""Running a tutoring session's turns for the tutor screen, and handing it their events.

All the session's turns run in one worker: each answer the learner sends is put on a queue and
becomes a turn (a worker per turn would pay its start-up and state messages on every answer).

Drawing is what a turn costs on screen, so the screen draws while the model works: a turn's
events are held until an agent announces a model call (or tokens come, or the turn ends) and
then posted together, so the drawing they cause happens while the model thinks, not between the
turn's steps where it would delay the next call. Tokens go straight to the chat when the screen
has handled every event before them (the worker runs on the screen's loop), else behind those
events in one message for all the tokens that came meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message

from core.events import Done, Progress, RunEvent
from tui.frames import draw_now
from tui.screens.base import NoemaScreen
from tui.widgets.tutor_chat import TutorChat


class TutorEvents(Message):
    """Events of the running turn, posted by the turn worker in the order they came."""

    def __init__(self, events: list[RunEvent]) -> None:
        super().__init__()
        self.events = events


class TokensArrived(Message):
    """Tokens of the tutor's reply wait in the screen's buffer (one message for many tokens)."""


class TurnEnded(Message):
    """The turn finished (or failed); `values` is the session's state after it."""

    def __init__(self, values: dict[str, Any]) -> None:
        super().__init__()
        self.values = values


class TurnRelay(NoemaScreen):
    """The session worker of `TutorScreen` (a part of it: it posts to, and draws on, the
    screen, which provides what is declared below)."""

    if TYPE_CHECKING:
        conversation: list[dict[str, Any]]

        def show_event(self, event: RunEvent) -> None: ...

    def init_relay(self) -> None:
        self._answers: asyncio.Queue[str] | None = None
        """Answers for the session's worker (None while no session runs)."""
        self._tokens: list[str] = []
        """Streamed tokens not drawn yet; a `TokensArrived` is in flight while it is not empty."""
        self._posted = self._handled = 0
        """Event batches posted by the worker, and handled by the screen."""
        self._early_reply: dict[str, Any] | None = None
        """The reply shown from the executor's `done` event, until its node's update comes."""

    def send_answer(self, text: str) -> bool:
        """Queue the learner's answer for the session's worker; whether one runs."""
        if self._answers is None:
            return False
        self._answers.put_nowait(text)
        return True

    def stop_session(self) -> None:
        self.workers.cancel_group(self, "tutor-turn")
        self._answers = None

    @work(exclusive=True, group="tutor-turn", exit_on_error=False)
    async def run_session(self, session_id: str, retry: bool) -> None:
        """The session's turns, all in this one worker (see the module docstring)."""
        answers: asyncio.Queue[str] = asyncio.Queue()
        self._answers = answers
        try:
            if retry:  # the last turn did not finish (or it is the session's first)
                await self._guarded_turn(session_id, None)
            while True:
                await self._guarded_turn(session_id, await answers.get())
        finally:
            if self._answers is answers:
                self._answers = None

    async def _guarded_turn(self, session_id: str, text: str | None) -> None:
        """A turn whose error is shown, not the end of the session's worker."""
        try:
            await self._run_turn(session_id, text)
        except Exception as exc:  # noqa: BLE001 - the learner can answer again
            self.notify(f"the turn failed: {exc}", severity="error", timeout=10)

    async def _run_turn(self, session_id: str, text: str | None) -> None:
        """One turn: events held until an agent announces a model call (or tokens come, or
        the turn ends), then posted together (see the module docstring).

        The tutor's reply is the turn's last model call: once its tokens came, events are
        posted as they come (its message is drawn while the runtime writes its last
        checkpoint), and the turn ends for the screen with the state it reports (`Done`),
        not after the runtime let go of the session."""
        from core.flows.tutor.session import session_values, turn

        # the answer box stays enabled (answers are ignored while busy): toggling it would move
        # the focus and make the footer recompose on every turn
        self.busy = True
        self._tokens.clear()
        held: list[RunEvent] = []
        replied = ended = False
        try:
            async for event in turn(self.require_services().runtime, session_id, text):
                if isinstance(event, Progress) and "token" in event.data:
                    self._post_held(held)
                    self._buffer_token(event.data["token"])
                    replied = True
                    continue
                held.append(event)
                working = isinstance(event, Progress) and event.data.get("working")
                if working or replied or isinstance(event, Done):
                    self._post_held(held)
                if isinstance(event, Done):
                    ended = True  # the state after the turn: no second read
                    self.post_message(TurnEnded(event.output))
        finally:
            self._post_held(held)
            if not ended:
                values = await session_values(self.require_services().runtime, session_id)
                self.post_message(TurnEnded(values))

    def _post_held(self, held: list[RunEvent]) -> None:
        if held:
            self._posted += 1
            self.post_message(TutorEvents(list(held)))
            held.clear()

    def _buffer_token(self, token: str) -> None:
        """Give a token to the chat: at once when the screen has handled every event before
        it (the worker runs on the screen's loop), else behind them, in one message for all
        the tokens buffered until the screen reads them."""
        if self._handled == self._posted and not self._tokens:
            self.query_one(TutorChat).stream(token)
            return
        self._tokens.append(token)
        if len(self._tokens) == 1:
            self.post_message(TokensArrived())

    def on_tokens_arrived(self, _message: TokensArrived) -> None:
        tokens, self._tokens = "".join(self._tokens), []
        if tokens:
            self.query_one(TutorChat).stream(tokens)

    def on_tutor_events(self, message: TutorEvents) -> None:
        chat = self.query_one(TutorChat)
        awaited = chat.awaiting_reply
        with self.app.batch_update():  # one frame for all the widgets the events change
            for event in message.events:
                self.show_event(event)
        self._handled += 1
        if awaited and not chat.awaiting_reply:
            # the reply's message took its block's place: the learner waits on this frame
            draw_now(self, chat.changed_region)

    def show_reply(self, reply: Mapping[str, Any] | None) -> None:
        """The reply's message as the executor will store it: shown now, before the node's
        log, store and checkpoint writes (the learner reads it while they run); its node's
        update then adds nothing (`not_shown`)."""
        chat = self.query_one(TutorChat)
        if not reply:  # the text is complete; its message comes with the node's update
            chat.reply_written()
            return
        self._early_reply = dict(reply)
        self.conversation.append(self._early_reply)
        chat.show_messages(self.conversation)

    def not_shown(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`messages` without the reply `show_reply` already showed."""
        early, self._early_reply = self._early_reply, None
        if early is not None and messages[:1] == [early]:
            return messages[1:]
        return messages
