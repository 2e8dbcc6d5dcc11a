"""Writing the user's settings file (e.g. the learner profile edited in the TUI).

Only the given keys change: the file is read, the update is merged into it table by table,
and it is written back atomically. Comments in the user's file are not kept (TOML writers do
not round-trip them); every other key and value is.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from core.settings.loader import SettingsError, deep_merge
from core.settings.model import Settings


def save_user_settings(path: Path | str, update: dict[str, Any]) -> dict[str, Any]:
    """Merge `update` (nested tables, e.g. {"flows": {"tutor": {"learner": {...}}}}) into the
    user's settings file at `path` and return the file's new content.

    The merged content is validated as settings first, so an invalid value never reaches disk.
    """
    path = Path(path).expanduser()
    current: dict[str, Any] = {}
    if path.is_file():
        try:
            current = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"{path}: not valid TOML: {exc}") from exc
    merged = deep_merge(current, _plain(update))
    try:
        Settings(**merged)
    except Exception as exc:  # pydantic's ValidationError, reported as a settings error
        raise SettingsError(f"{path}: the new settings are invalid: {exc}") from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            tomli_w.dump(merged, handle)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return merged


def _plain(value: Any) -> Any:
    """TOML has no null: drop None values; paths become strings."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value if v is not None]
    if isinstance(value, Path):
        return str(value)
    return value
