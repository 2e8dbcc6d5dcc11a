"""The composition root: settings, store, model client, vault and runtime of one process.

Front ends (the TUI, the CLI, tests) open one `Services` and hand its parts to the runtime;
flows receive them through `FlowContext`, never through globals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from core.activity import ModelActivity
from core.context import FlowContext
from core.models import build_client
from core.note_language import note_language
from core.runtime import FlowSpec, Runtime
from core.settings import Settings
from core.store import Store, open_store
from core.vault_handle import VaultHandle, open_vault
from local_llm import Backend, LLMClient

__all__ = ["Services", "VaultHandle", "open_services", "open_vault"]
"""`VaultHandle` and `open_vault` live in core.vault_handle; they are still reached here."""


@dataclass
class Services:
    """Everything a front end needs, opened once per process."""

    settings: Settings
    store: Store
    llm: LLMClient
    vault: VaultHandle | None
    runtime: Runtime
    extras: dict[str, object] = field(default_factory=dict)
    activity: ModelActivity = field(default_factory=ModelActivity)
    """The model requests in flight (the client reports to it): what a front end shows while
    the model works."""
    recovered: list[str] = field(default_factory=list)
    """Runs a dead process had left `running`, queued again when these services opened."""

    def recover_interrupted(self) -> list[str]:
        """Runs a dead process left `running` are queued again (core.runtime); their ids."""
        recovered = self.runtime.recover_interrupted()
        self.recovered += recovered
        return recovered

    def context(self, run_id: str) -> FlowContext:
        """The FlowContext of one run (the note language resolved when its flow needs it)."""
        language = self.runtime.needs_note_language(run_id)
        return FlowContext(self.settings, self.llm, self.store, self.vault, run_id, language)

    def note_language(self) -> str:
        """The language notes are written in (see core.note_language)."""
        return note_language(self.settings, self.vault)

    async def __aenter__(self) -> Services:
        await self.runtime.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the checkpointer and the store; let go of the local model's servers."""
        await self.runtime.close()
        self.store.close()
        self.llm.close()


def open_services(
    settings: Settings,
    flows: Mapping[str, FlowSpec],
    *,
    backend: Backend | None = None,
    warm: bool = True,
) -> Services:
    """Open the store, the client and the vault; the runtime opens with `async with`.

    `warm=False` for front ends that will not call a model (merges, repair): warming imports
    litellm for seconds, and the process would wait for that import before it exits.
    """
    store = open_store(settings)
    activity = ModelActivity()
    llm = build_client(settings, store, backend, activity)
    if warm:
        llm.warm()  # litellm's import (seconds) runs while the rest opens, outside any call
    vault = open_vault(settings, store, llm)
    holder: dict[str, Services] = {}
    runtime = Runtime(settings, store, flows, lambda run_id: holder["services"].context(run_id))
    services = Services(settings, store, llm, vault, runtime, activity=activity)
    holder["services"] = services
    services.recover_interrupted()  # every front end, every start: no run stuck `running`
    return services
