"""Messages the app's workers and the watcher thread post; screens react to them.

Workers and threads never touch widgets: they post one of these to the app
(`post_message` is thread-safe) and the app hands a fresh copy to every screen on the
stack. None of them bubble, so a screen's copy never comes back to the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from core.events import RunEvent
from core.store.runs import RunRecord

if TYPE_CHECKING:
    from core.model_gate import Gate
    from vault.watcher import VaultEvent


class ServicesReady(Message, bubble=False):
    """The store, model client, vault and runtime are open (`app.services`)."""


class VaultChanged(Message, bubble=False):
    """A settled batch of vault events from the watcher, and the runs it queued."""

    def __init__(self, events: list[VaultEvent], queued: list[RunRecord]) -> None:
        super().__init__()
        self.events = list(events)
        self.queued = list(queued)


class WatcherStatus(Message, bubble=False):
    """The watcher started, stopped or failed; `text` says which."""

    def __init__(self, running: bool, text: str) -> None:
        super().__init__()
        self.running = running
        self.text = text


class RunUpdate(Message, bubble=False):
    """One typed event of a run the app is driving (workflow screens handle it too)."""

    def __init__(self, event: RunEvent) -> None:
        super().__init__()
        self.event = event


class RunsChanged(Message, bubble=False):
    """The runs table changed (a run was queued, started, paused, finished or cancelled)."""


class ModelStatus(Message, bubble=False):
    """The default role's model is there (True), not (False) or being checked (None)."""

    def __init__(
        self,
        ok: bool | None,
        detail: str,
        *,
        gate: Gate | None = None,
        next_check_s: float | None = None,
    ) -> None:
        super().__init__()
        self.ok = ok
        self.detail = detail
        """What is there, or what is missing with its one-line fix."""
        self.gate = gate
        """The `core.model_gate.Gate` of the check (None while checking)."""
        self.next_check_s = next_check_s
        """When the model is not there: seconds until it is checked again."""

    def copy(self) -> ModelStatus:
        """A fresh message with the same content (one per screen)."""
        return ModelStatus(self.ok, self.detail, gate=self.gate, next_check_s=self.next_check_s)


class IndexProgress(Message, bubble=False):
    """Indexing the vault: `done` of `total` files read (`path` the latest); `done` is -1 once
    it is over (embeddings, which follow the files, show as model activity)."""

    def __init__(self, done: int, total: int, path: str) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.path = path
