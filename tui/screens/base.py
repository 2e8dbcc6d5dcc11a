"""The base of noema's screens: `self.app` typed as `NoemaApp`, and a failing worker becomes a
notification, never a crash.

Textual types `node.app` as `App[object]`; `NoemaScreen` and `NoemaModal` declare it as
`NoemaApp` with Textual's own `getters.app` (type-checking only, as Textual declares its own
`app`), so screens and modals reach the services, settings, drafts and runs through one typed
`self.app`, never `getattr(self.app, ...)`. Widgets that need the app do the same (`app =
getters.app(NoemaApp)` under `TYPE_CHECKING`, e.g. tui.widgets.banner).

Textual posts `Worker.StateChanged` to the node that started the worker (it does not
bubble), so every screen that runs `@work(..., exit_on_error=False)` workers should derive
from `NoemaScreen` (or `NoemaModal`); both hand the event to `NoemaApp.report_worker`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import getters, on
from textual.screen import ModalScreen, Screen
from textual.worker import Worker

from tui.messages import ServicesReady

if TYPE_CHECKING:
    from core.events import RunEvent
    from core.services import Services, VaultHandle
    from tui.app import NoemaApp

ModalResult = TypeVar("ModalResult")


class NotReady(RuntimeError):
    """What a screen needs is not there yet (the services still opening, no vault configured):
    one line for the user, where an AttributeError on None would have been a traceback."""


class NoemaScreen(Screen[None]):
    """A full screen whose worker failures are reported by the app."""

    if TYPE_CHECKING:
        app = getters.app(NoemaApp)

    HELP_KEYS: ClassVar[list[tuple[str, str]]] = []
    """Keys of the screen's widgets that matter to it (`enter` on a table row), for the help
    (the screen's own bindings are listed from its BINDINGS)."""
    noema_name: str | None = None
    """The registry name it was opened by (tui.registry), if it was."""

    @on(ServicesReady)
    def _services_ready_banner(self) -> None:
        """The effective model is known now: show or hide the bundled-model banner."""
        from tui.widgets.banner import MechanicsBanner

        for banner in self.query(MechanicsBanner):
            banner.check()

    @property
    def services(self) -> Services | None:
        """The app's services; None until they are open (`ServicesReady`)."""
        return self.app.services

    def require_services(self) -> Services:
        """The app's services, for code that runs once they are open (after `ServicesReady`,
        in workers and actions started from there)."""
        services = self.app.services
        if services is None:
            raise NotReady("still opening the vault and the model; try again in a moment")
        return services

    def require_vault(self) -> VaultHandle:
        """The vault, for code that reads or writes notes."""
        vault = self.require_services().vault
        if vault is None:
            raise NotReady("no vault configured: set vault.path, or run `noema demo`")
        return vault

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker(event)

    def replay_run(self, run_id: str) -> list[RunEvent]:
        """The run's events so far (the app's log), to show a run the screen joins mid-way.

        The same event objects may still arrive as live `RunUpdate`s; `already_shown` skips them.
        """
        log = self.app.run_log(run_id)
        self._replayed = {id(event) for event in log}
        return log

    def already_shown(self, event: RunEvent) -> bool:
        """Whether this live event was shown by `replay_run` (each is skipped once)."""
        replayed: set[int] = getattr(self, "_replayed", set())
        if id(event) in replayed:
            replayed.discard(id(event))
            return True
        return False

    def action_back(self) -> None:
        """Back to the screen below (the workflow screens bind it to escape)."""
        self.app.pop_screen()


class NoemaModal(ModalScreen[ModalResult]):
    """A modal screen whose worker failures are reported by the app; `NoemaModal[T]` is
    dismissed with a T."""

    if TYPE_CHECKING:
        app = getters.app(NoemaApp)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.report_worker(event)
