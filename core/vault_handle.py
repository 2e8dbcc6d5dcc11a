"""The vault as flows and front ends hold it: root, layout, the one writer, the index.

Its own module so that `core.context.FlowContext` can name it without importing the
composition root (`core.services` imports `core.context`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.ingest import layout_from_settings
from core.settings import Settings
from core.store import Store
from local_llm import LLMClient
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter


@dataclass
class VaultHandle:
    """One vault: where it is, how it is laid out, its one writer and its index."""

    root: Path
    """The vault's root folder."""
    layout: VaultLayout
    """Folder names and exclusions."""
    writer: VaultWriter
    """The only way noema changes a file in the vault."""
    index: VaultIndex
    """The vault's index in the store."""
    embed_model: str = ""
    """Model name the concept embeddings were made with ('' when none)."""

    def reindex(self, *paths: str) -> None:
        """Bring the index up to date for files noema just wrote."""
        self.index.index_paths(list(paths))


def open_vault(settings: Settings, store: Store, llm: LLMClient | None) -> VaultHandle | None:
    """The configured vault, or None when no vault path is set."""
    if settings.vault.path is None:
        return None
    root = settings.vault.path.resolve()
    layout = layout_from_settings(settings)
    embed = None
    embed_model = ""
    if llm is not None and settings.models.embeddings_enabled:
        embed = llm.embed
        embed_model = settings.role("embedding").model or settings.models.model
    index = VaultIndex(store, root, layout, embed=embed, embed_model=embed_model)
    return VaultHandle(root, layout, VaultWriter(root, layout), index, embed_model)
