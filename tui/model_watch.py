"""The app's watch over its model: runs start only when their model is there.

The cheap checks of `core.model_gate` (API key, server, model on the server; no model request)
run when the services open, when the user asks (`r` on home), after a model is chosen, and,
while the model is missing or its server is down, again and again with a growing delay
(`tui.model_recheck_s`, doubling up to `tui.model_recheck_max_s`). Queued runs (the watcher's
extractions among them) wait meanwhile, shown as "waiting for model X" on home, and start by
themselves once a check finds the model: starting Ollama or pulling the model is enough.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.message import Message
from textual.timer import Timer

from core.model_gate import Backoff, Gate, model_gate
from tui.messages import ModelStatus

if TYPE_CHECKING:
    from core.services import Services
    from core.settings import Settings


class ModelWatch(App[object]):
    """A part of NoemaApp, which provides what is declared below."""

    if TYPE_CHECKING:
        settings: Settings
        services: Services | None

        def _broadcast(self, make: Callable[[], Message]) -> None: ...

        def start_next_queued(self) -> None: ...

    def init_model_watch(self) -> None:
        tui = self.settings.tui
        self.model_ok: bool | None = None
        """Whether the default role's model was there at the last check (None: unknown)."""
        self.model_gate: Gate | None = None
        """The last check's result (what is missing and how to fix it)."""
        self._backoff = Backoff(tui.model_recheck_s, tui.model_recheck_max_s)
        self._recheck: Timer | None = None

    @property
    def waiting_for(self) -> str | None:
        """The model queued runs wait for (None when they may start)."""
        if self.model_ok is not False or self.model_gate is None:
            return None
        return self.model_gate.model

    @work(exclusive=True, group="model-status", exit_on_error=False)
    async def check_model(self) -> None:
        """Check the default role's model; schedule the next check while it is not there."""
        if self.services is None:
            return
        if self._recheck is not None:
            self._recheck.stop()
            self._recheck = None
        warming = self.services.llm.warming
        if warming is not None and warming.is_alive():  # start-up work, not the model's
            self.post_message(ModelStatus(None, "starting: loading the model backend…"))
            await asyncio.to_thread(warming.join)
        if self.model_gate is None:  # later checks keep showing the last result meanwhile
            self.post_message(ModelStatus(None, "checking…"))
        gate = await model_gate(self.services.llm)
        self.model_gate, self.model_ok = gate, gate.ready
        next_check = None
        if gate.ready:
            self._backoff.reset()
        else:
            next_check = self._backoff.next()
            self._recheck = self.set_timer(next_check, self.check_model, name="model-recheck")
        self.post_message(ModelStatus(gate.ready, gate.summary, gate=gate, next_check_s=next_check))

    def on_model_status(self, message: ModelStatus) -> None:
        self._broadcast(lambda: message.copy())
        if message.ok:
            self.start_next_queued()

    def model_changed(self) -> None:
        """A model was chosen in the app: point the client at it and check it at once."""
        from core.models import model_configs

        services = self.services
        if services is None:
            return
        services.llm.set_roles(model_configs(self.settings))
        vault = services.vault
        if vault is not None and self.settings.models.embeddings_enabled:
            # new embeddings are made with the chosen model (and labelled with its name)
            model = self.settings.role("embedding").model or self.settings.models.model
            vault.index.embed, vault.index.embed_model = services.llm.embed, model
            vault.embed_model = model
        self._backoff.reset()
        self.check_model()
