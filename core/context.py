"""What every node receives through LangGraph's runtime context (never module globals)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.settings import Settings
from core.store import Store


@dataclass
class FlowContext:
    """Per-run dependencies, passed as `context=` and read in nodes as `runtime.context`."""

    settings: Settings
    """The effective settings."""
    llm: Any
    """The `local_llm.LLMClient` for every model call."""
    store: Store
    """The SQLite store."""
    vault: Any = None
    """The vault handle (root, layout, writer), or None for flows that do not touch the vault."""
    run_id: str = ""
    """The run (thread) id."""

    def __post_init__(self) -> None:
        # a note language left to the vault is resolved once, here (core.note_language)
        from core.note_language import resolve_note_language

        self.settings = resolve_note_language(self.settings, self.vault)
