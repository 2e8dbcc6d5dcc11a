"""What every node receives through LangGraph's runtime context (never module globals)."""

from __future__ import annotations

from dataclasses import dataclass

from core.settings import Settings
from core.store import Store
from core.vault_handle import VaultHandle
from local_llm import LLMClient


@dataclass
class FlowContext:
    """Per-run dependencies, passed as `context=` and read in nodes as `runtime.context`."""

    settings: Settings
    """The effective settings."""
    llm: LLMClient
    """The model client for every model call."""
    store: Store
    """The SQLite store."""
    vault: VaultHandle | None = None
    """The vault handle (root, layout, writer), or None for flows that do not touch the vault."""
    run_id: str = ""
    """The run (thread) id."""
    note_language: bool = True
    """Resolve the language notes are written in (a flow that writes none skips the cost)."""

    def require_vault(self) -> VaultHandle:
        """The vault, for the steps that read or write notes: a clear error without one."""
        if self.vault is None:
            raise ValueError("no vault is configured: set vault.path")
        return self.vault

    def __post_init__(self) -> None:
        # a note language left to the vault is resolved once, here (core.note_language)
        if self.note_language:
            from core.note_language import resolve_note_language

            self.settings = resolve_note_language(self.settings, self.vault)
