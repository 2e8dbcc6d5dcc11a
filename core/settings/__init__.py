"""noema's settings: one pydantic-settings model with nested sections.

The names are imported on first use (PEP 562): `noema --help` and a command that only
catches `SettingsError` do not pay for pydantic-settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.settings.errors import SettingsError

if TYPE_CHECKING:
    from core.settings.loader import deep_merge, load_settings, user_settings_path
    from core.settings.model import Settings

__all__ = ["Settings", "SettingsError", "deep_merge", "load_settings", "user_settings_path"]


def __getattr__(name: str) -> object:
    if name == "Settings":
        from core.settings.model import Settings

        return Settings
    if name in ("deep_merge", "load_settings", "user_settings_path"):
        from core.settings import loader

        return getattr(loader, name)
    raise AttributeError(f"module 'core.settings' has no attribute {name!r}")
