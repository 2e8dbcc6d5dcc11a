"""The base of noema's screens: a failing worker becomes a notification, never a crash.

Textual posts `Worker.StateChanged` to the node that started the worker (it does not
bubble), so every screen that runs `@work(..., exit_on_error=False)` workers should derive
from `NoemaScreen` (or `NoemaModal`); both hand the event to `NoemaApp.report_worker`.
"""

from __future__ import annotations

from textual.screen import ModalScreen, Screen
from textual.worker import Worker


class NoemaScreen(Screen):
    """A full screen whose worker failures are reported by the app."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker(event)

    def action_back(self) -> None:
        """Back to the screen below (the workflow screens bind it to escape)."""
        self.app.pop_screen()


class NoemaModal(ModalScreen):
    """A modal screen whose worker failures are reported by the app."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker(event)
