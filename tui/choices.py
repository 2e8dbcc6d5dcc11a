"""Choices made in the app (a model for a role, the theme, the learner profile, the vault, the
note language) kept in the user's settings file, with its comments and layout intact
(`core.settings.writer`), and in the running settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.settings import Settings, SettingsError
from core.settings.writer import save_user_settings


def save_choice(app: Any, update: dict[str, Any], what: str) -> bool:
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


def apply_update(settings: Settings, update: dict[str, Any]) -> None:
    """Merge `update` into the running settings, validated like a file would be. The object
    stays the same (the services hold it too); its changed sections are replaced."""
    from core.settings import deep_merge

    merged = Settings(**deep_merge(settings.model_dump(), update))
    for section in update:
        setattr(settings, section, getattr(merged, section))
