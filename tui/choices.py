"""Choices made in the app (a model for a role, the theme, the learner profile, the vault, the
note language) kept in the user's settings file, with its comments and layout intact
(`core.settings.writer`), and in the running settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.settings import Settings, SettingsError
from core.settings.loader import SettingsTable
from core.settings.writer import save_user_settings

if TYPE_CHECKING:
    from local_llm import ModelConfig
    from tui.app import NoemaApp


def save_choice(app: NoemaApp, update: SettingsTable, what: str) -> bool:
    """Write `update` (nested tables) into the app's user settings file and apply it to the
    running settings; a notification says where it went or why it did not."""
    path: Path = app.settings_path
    try:
        save_user_settings(path, update)
        apply_update(app.settings, update)
    except (SettingsError, ValueError) as exc:
        app.notify(f"{what} not saved: {exc}", severity="error", timeout=10)
        return False
    app.notify(f"{what} saved to {path}", title="Settings")
    return True


def apply_update(settings: Settings, update: SettingsTable) -> None:
    """Merge `update` into the running settings, validated like a file would be. The object
    stays the same (the services hold it too); its changed sections are replaced."""
    from core.settings.loader import deep_merge, settings_from

    merged = settings_from(deep_merge(settings.model_dump(), update))
    for section in update:
        setattr(settings, section, getattr(merged, section))


def model_update(settings: Settings, source: ModelConfig, role: str, name: str) -> SettingsTable:
    """The settings update that makes `name` (a model listed by the server of the `source`
    config) the model of `role`, in the form that server's route needs (`ollama_chat/NAME`
    for chat through litellm, `ollama/NAME` for its embeddings, `openai/NAME` for an
    OpenAI-compatible server, the bare name for Ollama's own client)."""
    from local_llm.catalog import server_kind

    if server_kind(source) == "ollama" and source.provider != "ollama":
        prefix = source.model.split("/", 1)[0] if "/" in source.model else "ollama_chat"
        model = f"ollama/{name}" if role == "embedding" else f"{prefix}/{name}"
    elif server_kind(source) == "openai":
        model = f"openai/{name}"
    else:
        model = name
    override = settings.models.roles.get(role)
    if role == "default" and (override is None or override.model is None):
        return {"models": {"model": model}}
    fields: SettingsTable = {"model": model}
    resolved = settings.role(role)
    if resolved.base_url != source.base_url:
        fields["base_url"] = source.base_url
    if resolved.provider != source.provider:
        fields["provider"] = source.provider
    models: SettingsTable = {"roles": {role: fields}}
    if role == "embedding":
        models["embeddings_enabled"] = True
    return {"models": models}
