"""noema's settings: one pydantic-settings model with nested sections."""

from core.settings.loader import SettingsError, deep_merge, load_settings, user_settings_path
from core.settings.model import Settings

__all__ = ["Settings", "SettingsError", "deep_merge", "load_settings", "user_settings_path"]
