"""The base of noema's screens: a failing worker becomes a notification, never a crash.

Textual posts `Worker.StateChanged` to the node that started the worker (it does not
bubble), so every screen that runs `@work(..., exit_on_error=False)` workers should derive
from `NoemaScreen` (or `NoemaModal`); both hand the event to `NoemaApp.report_worker`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.screen import ModalScreen, Screen
from textual.worker import Worker

from tui.messages import ServicesReady


class NoemaScreen(Screen):
    """A full screen whose worker failures are reported by the app."""

    HELP_KEYS: ClassVar[list[tuple[str, str]]] = []
    """Keys of the screen's widgets that matter to it (`enter` on a table row), for the help
    (the screen's own bindings are listed from its BINDINGS)."""

    @on(ServicesReady)
    def _services_ready_banner(self) -> None:
        """The effective model is known now: show or hide the bundled-model banner."""
        from tui.widgets.banner import MechanicsBanner

        for banner in self.query(MechanicsBanner):
            banner.check()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker(event)

    def replay_run(self, run_id: str) -> list[Any]:
        """The run's events so far (the app's log), to show a run the screen joins mid-way.

        The same event objects may still arrive as live `RunUpdate`s; `already_shown` skips them.
        """
        log = self.app.run_log(run_id)
        self._replayed = {id(event) for event in log}
        return log

    def already_shown(self, event: Any) -> bool:
        """Whether this live event was shown by `replay_run` (each is skipped once)."""
        replayed: set[int] = getattr(self, "_replayed", set())
        if id(event) in replayed:
            replayed.discard(id(event))
            return True
        return False

    def action_back(self) -> None:
        """Back to the screen below (the workflow screens bind it to escape)."""
        self.app.pop_screen()


class NoemaModal(ModalScreen):
    """A modal screen whose worker failures are reported by the app."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker(event)
