"""Writing the user's settings file (choices made in the TUI: model per role, theme, learner
profile, vault, note language).

Only the given keys change: the file is parsed with tomlkit, the update is set into it key by
key, and it is written back atomically. Everything else in the file (comments, key order,
blank lines, quoting, inline tables) stays as the user wrote it. The repository's
`settings.toml` (the documented defaults) is never written.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table

from core.settings.loader import REPO_DEFAULTS, SettingsError, SettingsTable
from core.settings.model import Settings

TableLike = Container | Table | InlineTable


def save_user_settings(path: Path | str, update: SettingsTable) -> SettingsTable:
    """Set `update` (nested tables, e.g. {"flows": {"tutor": {"learner": {...}}}}) into the
    user's settings file at `path` and return the file's new content (plain dicts).

    The new content is validated as settings first, so an invalid value never reaches disk.
    """
    path = Path(path).expanduser()
    if path.resolve() == REPO_DEFAULTS.resolve():
        raise SettingsError(
            f"{path}: the repository's documented defaults are never written; "
            "choose your own settings file (--settings PATH or $NOEMA_SETTINGS)"
        )
    document = _read_document(path)
    _set_tables(document, _plain_table(update))
    text = tomlkit.dumps(document)
    content = tomllib.loads(text)
    try:
        Settings(**content)
    except Exception as exc:  # pydantic's ValidationError, reported as a settings error
        raise SettingsError(f"{path}: the new settings are invalid: {exc}") from exc
    _write_atomically(path, text)
    return content


def _read_document(path: Path) -> tomlkit.TOMLDocument:
    if not path.is_file():
        return tomlkit.document()
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8"))
    except (TOMLKitError, ValueError) as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc


def _set_tables(container: TableLike, update: SettingsTable) -> None:
    """Set every key of `update` into `container`, descending into the tables that exist and
    creating the ones that do not (a table holding only tables becomes a header-less "super
    table", so `[flows.tutor.learner]` is written instead of empty `[flows]`, `[flows.tutor]`)."""
    for key, value in update.items():
        if not isinstance(value, dict):
            container[key] = value
            continue
        existing = container.get(key)
        if isinstance(existing, Table | InlineTable):
            _set_tables(existing, value)
            continue
        if isinstance(container, InlineTable):
            table: Table | InlineTable = tomlkit.inline_table()
        else:
            only_tables = bool(value) and all(isinstance(v, dict) for v in value.values())
            table = tomlkit.table(is_super_table=only_tables)
        _set_tables(table, value)
        container[key] = table


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _plain_table(table: SettingsTable) -> SettingsTable:
    """TOML has no null: drop None values; paths become strings."""
    return {str(k): _plain(v) for k, v in table.items() if v is not None}


def _plain(value: object) -> object:
    """TOML has no null: drop None values; paths become strings."""
    if isinstance(value, dict):
        return _plain_table(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value if v is not None]
    if isinstance(value, Path):
        return str(value)
    return value
