"""Finding, merging and validating settings files, with errors a person can act on."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir
from pydantic import ValidationError

from core.settings.errors import SettingsError
from core.settings.model import Settings

__all__ = [
    "SettingsError",
    "SettingsTable",
    "deep_merge",
    "load_settings",
    "settings_from",
    "user_settings_path",
]

SettingsTable = dict[str, object]
"""A settings table as TOML holds it: keys to values (scalars, arrays, nested tables), read
only by the settings model that validates it."""

REPO_DEFAULTS = Path(__file__).resolve().parents[2] / "settings.toml"


def user_settings_path(explicit: Path | str | None = None) -> Path:
    """The user's settings file: `--settings`, else NOEMA_SETTINGS, else the XDG config dir."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("NOEMA_SETTINGS")
    if env:
        return Path(env).expanduser()
    return Path(user_config_dir("noema", appauthor=False)) / "settings.toml"


def _read_toml(path: Path) -> SettingsTable:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read: {exc.strerror}") from exc


def deep_merge(base: SettingsTable, override: SettingsTable) -> SettingsTable:
    """A new dict with `override` merged into `base`, nested tables merged key by key."""
    merged = dict(base)
    for key, value in override.items():
        below = merged.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            merged[key] = deep_merge(below, value)
        else:
            merged[key] = value
    return merged


def _has_key(data: SettingsTable, loc: tuple[str | int, ...]) -> bool:
    node: object = data
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _env_name(loc: tuple[str | int, ...]) -> str | None:
    """The NOEMA_ variable that set this key or one of its parent tables, if any (env wins)."""
    for depth in range(len(loc), 0, -1):
        name = "NOEMA_" + "__".join(str(part) for part in loc[:depth]).upper()
        if any(key.upper() == name for key in os.environ):
            return f"environment variable {name}"
    return None


def _describe(exc: ValidationError, layers: list[tuple[str, SettingsTable]]) -> str:
    lines = []
    for error in exc.errors():
        loc = tuple(part for part in error["loc"] if part != "__root__")
        key = ".".join(str(part) for part in loc) or "(settings)"
        env_name = _env_name(loc)
        origin = env_name if env_name else None
        origin = origin or next(
            (name for name, data in reversed(layers) if _has_key(data, loc)), None
        )
        if origin is None:
            origin = "environment (NOEMA_*)" if loc else layers[-1][0]
        message = error["msg"].removeprefix("Value error, ")
        lines.append(f"{origin}: {key}: {message}")
    return "\n".join(lines)


def settings_from(table: SettingsTable) -> Settings:
    """Settings validated from a table (file layers merged), with the environment on top.

    pydantic-settings takes the table as keywords (`Settings(**table)`, which also reads the
    NOEMA_ variables: `model_validate` would not); its keywords are typed per field, so the
    table, validated by it, is handed over untyped here, once."""
    fields: dict[str, Any] = table
    return Settings(**fields)


def load_settings(path: Path | str | None = None, *, use_repo_defaults: bool = True) -> Settings:
    """Load settings from the documented defaults, the user's file and the environment.

    Raises SettingsError (never a traceback for the user) when anything is invalid.
    """
    layers: list[tuple[str, SettingsTable]] = []
    if use_repo_defaults and REPO_DEFAULTS.is_file():
        layers.append((str(REPO_DEFAULTS), _read_toml(REPO_DEFAULTS)))
    user_file = user_settings_path(path)
    if user_file.is_file():
        layers.append((str(user_file), _read_toml(user_file)))
    elif path is not None:
        raise SettingsError(f"{user_file}: settings file not found")
    merged: SettingsTable = {}
    for _, data in layers:
        merged = deep_merge(merged, data)
    try:
        return settings_from(merged)
    except ValidationError as exc:
        raise SettingsError(_describe(exc, layers or [("settings", {})])) from exc
