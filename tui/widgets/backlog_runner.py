"""Home's "extract all": the backlog of unprocessed sources, each its own run (core.backlog).

The key counts the backlog (after syncing the index) and asks first, saying how many sources
there are and how many run at once; confirmed, a Textual worker drives `Backlog.run()` while
the line below the runs table shows its progress. The runs it drives are claimed in the app's
`driving` set (the app's autostart leaves them alone) and their events go out as `RunUpdate`s,
so the runs table, notifications and a run's screen follow them as they follow the app's own.

Stopping cancels the worker: `Backlog` requeues the runs under way at their last checkpoint,
and the app holds them from its autostart (`NoemaApp.held`) until the user starts them (the
same key continues the pass, `s` one run, `noema extract --all` from a shell).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Unpack

from textual import getters, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label
from textual.worker import Worker, WorkerState

from tui.messages import RunsChanged, RunUpdate
from tui.screens.base import NoemaModal
from tui.widgets.options import WidgetOptions

if TYPE_CHECKING:
    from tui.app import NoemaApp

BINDING_ID = "home.extract_all"


class ConfirmBacklog(NoemaModal):
    """How many sources would run, and how many at once: y starts, n / escape does not."""

    DEFAULT_CSS = """
    ConfirmBacklog { align: center middle; }
    ConfirmBacklog > Vertical { width: 76; max-width: 95%; height: auto; border: thick $accent;
        background: $surface; padding: 1 2; }
    ConfirmBacklog Label { width: 100%; }
    ConfirmBacklog Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    ConfirmBacklog Button { margin-left: 1; }
    """
    BINDINGS = [
        Binding("y,enter", "confirm", "Extract", id="home.extract_all.confirm"),
        Binding("n,escape", "cancel", "Cancel", id="home.extract_all.cancel"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.text, id="backlog-confirm-text")
            with Horizontal():
                yield Button("Extract (y)", variant="primary", id="backlog-confirm-yes")
                yield Button("Cancel (n)", id="backlog-confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "backlog-confirm-yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


def confirm_text(backlog: Any, todo: int) -> str:
    counts = backlog.counts
    waiting = f" ({counts.waiting} more already wait for their review)" if counts.waiting else ""
    return (
        f"Extract {todo} unprocessed source{'s' if todo != 1 else ''}{waiting}, "
        f"{backlog.runs} at a time (flows.extraction.bulk_runs)?\n"
        "Each becomes its own extraction run and stops at its review."
    )


def nothing_to_do(backlog: Any) -> str:
    waiting = backlog.counts.waiting
    if waiting:
        if waiting == 1:
            return "nothing to extract: the one unprocessed source waits for its review"
        return f"nothing to extract: the {waiting} unprocessed sources wait for their review"
    return "nothing to extract: every source is processed"


class BacklogLine(Label):
    """The pass's progress line (hidden while no pass runs); `toggle()` starts or stops it."""

    DEFAULT_CSS = """
    BacklogLine { width: 100%; margin: 0 1; color: $text-muted; display: none; }
    BacklogLine.-shown { display: block; }
    """

    if TYPE_CHECKING:
        app = getters.app(NoemaApp)

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__("", **kwargs)
        self.backlog: Any = None
        self.claimed: set[str] = set()
        """The runs the pass drives right now."""
        self.stopping: set[str] = set()
        """The runs under way when the user stopped the pass (queued again, held)."""
        self._worker: Worker | None = None

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.state in (
            WorkerState.PENDING,
            WorkerState.RUNNING,
        )

    def drives(self, run_id: str) -> bool:
        return run_id in self.claimed

    def toggle(self) -> None:
        if self.running:
            self.stop()
        else:
            self.prepare(self.key())

    def key(self) -> str:
        """The key bound to "extract all" (after the user's keymap)."""
        for active in self.screen.active_bindings.values():
            if active.binding.id == BINDING_ID:
                return self.app.get_key_display(active.binding)
        return "a"

    def stop(self) -> None:
        if self._worker is not None:
            self.stopping = set(self.claimed)
            self._worker.cancel()

    @work(exclusive=True, group="backlog-plan", exit_on_error=False)
    async def prepare(self, key: str) -> None:
        """Sync the index, count the backlog, then ask (or say there is nothing to do)."""
        from core.backlog import Backlog
        from core.problems import explain

        app = self.app
        services = app.services
        if services is None or services.vault is None:
            app.notify("no vault: nothing to extract", severity="warning")
            return
        if app.waiting_for is not None:
            app.notify(
                f"the model {app.waiting_for} is not there; nothing was started "
                "(see the Model panel)",
                severity="warning",
            )
            return
        self.add_class("-shown")
        self.update("Extract all: counting the unprocessed sources…")
        try:
            if app.watcher is None:  # else the watcher keeps the index current
                await services.vault.index.sync_async()
            backlog = Backlog(
                services, on_event=self._event, claim=self._claim, release=self._release
            )
            todo = await asyncio.to_thread(backlog.plan)
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback
            self.remove_class("-shown")
            app.notify(f"extract all failed: {explain(exc).line}", severity="error")
            return
        self.remove_class("-shown")
        if not todo:
            app.notify(nothing_to_do(backlog))
            return

        def confirmed(yes: bool | None) -> None:
            if yes and not self.running:
                self.backlog = backlog
                self.start(key)

        app.push_screen(ConfirmBacklog(confirm_text(backlog, todo)), confirmed)

    def start(self, key: str) -> None:
        self.backlog.on_progress = lambda counts: self.show(counts.line(), key)
        self.add_class("-shown")
        self.update(f"Extract all: starting…  ({key}: stop)")
        self._worker = self.run_backlog(key)

    def show(self, line: str, key: str) -> None:
        self.update(f"Extract all: {line}  ({key}: stop)")

    @work(exclusive=True, group="backlog", exit_on_error=False)
    async def run_backlog(self, key: str) -> None:
        from core.problems import explain

        app, backlog = self.app, self.backlog
        try:
            await backlog.run()
        except asyncio.CancelledError:
            app.held.update(self.stopping)
            counts = backlog.counts
            self.update(
                f"Extract all stopped at {counts.finished + counts.waiting}/{counts.total}"
                f" · {counts.review} to review · its runs wait, queued ({key} continues)"
            )
            app.post_message(RunsChanged())
            raise
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback
            self.update(f"Extract all failed: {explain(exc).line}; {key} tries again")
            app.post_message(RunsChanged())
            return
        self.update(f"Extract all done: {backlog.counts.line()}")
        app.post_message(RunsChanged())

    # -- the Backlog's hooks --------------------------------------------------------------

    def _claim(self, run_id: str) -> bool:
        app = self.app
        if run_id in app.driving:  # the app (its autostart, `s`) drives it already
            return False
        app.driving.add(run_id)
        app.held.discard(run_id)
        self.claimed.add(run_id)
        app.post_message(RunsChanged())
        return True

    def _release(self, run_id: str) -> None:
        self.app.driving.discard(run_id)
        self.claimed.discard(run_id)

    def _event(self, event: Any) -> None:
        self.app.post_message(RunUpdate(event))
