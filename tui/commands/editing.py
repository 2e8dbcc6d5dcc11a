"""Editing a text in the user's editor from the CLI ($VISUAL, else $EDITOR), and reading an
edited text from a file: what `noema evaluate` and `noema lesson` offer at a review."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from tui.commands import CommandError


def editor() -> str:
    """The configured editor command ('' when none is set)."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or ""


def edit_text(text: str) -> str | None:
    """`text` edited in the editor (a temporary .md file); None when unchanged or no editor."""
    command = editor()
    if not command:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as tmp:
        tmp.write(text)
    try:
        subprocess.run([*shlex.split(command), tmp.name], check=False)
        edited = Path(tmp.name).read_text(encoding="utf-8")
    finally:
        Path(tmp.name).unlink(missing_ok=True)
    return None if edited == text else edited


def read_edit(path: str) -> str:
    """The text of a file the user edited; a clear error when it is missing or empty."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        raise CommandError(f"{path} is empty")
    return text
