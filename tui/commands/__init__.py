"""Command groups of the `noema` CLI (see tui/cli.py for how to add one)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    from core.runtime import Runtime
    from core.services import Services, VaultHandle
    from core.settings import Settings
    from local_llm import Backend

T = TypeVar("T")

Ask = Callable[[str], str]
"""How a command asks the user a question at the terminal (`input`; tests script it)."""


class CommandError(Exception):
    """A problem the user can act on: printed as one line, no traceback."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def plain(doc: str | None) -> str:
    """A docstring as a `--help` description: without the Markdown backticks."""
    return (doc or "").replace("`", "")


def settings_from(args: argparse.Namespace) -> Settings:
    """The effective settings for `--settings` (raises SettingsError, reported by main)."""
    from core.settings import load_settings

    return load_settings(getattr(args, "settings", None))


def require_vault(settings: Settings) -> Path:
    """The vault's folder; a clear message when none is configured."""
    if settings.vault.path is None:
        raise CommandError(
            "no vault configured: set vault.path in your settings or run `noema demo`"
        )
    if not settings.vault.path.is_dir():
        raise CommandError(f"vault.path {settings.vault.path} is not a folder")
    return settings.vault.path


def vault_of(services: Services) -> VaultHandle:
    """The opened vault of a command that checked `require_vault` before opening."""
    if services.vault is None:
        raise CommandError(
            "no vault configured: set vault.path in your settings or run `noema demo`"
        )
    return services.vault


BUNDLED_MODEL_NOTE = (
    "note: the bundled model (Gemma 3 270M) answers here: its results are for trying the "
    "mechanics, not for real use (point [models] at a real model for real work)"
)


def open_flows(
    settings: Settings, *, backend: Backend | None = None, warm: bool = True
) -> Services:
    """`core.flows.registry.open_app` for a command; one that will call a model (`warm`) first
    says what the bundled model's results are worth when it serves the flows (issue 12)."""
    from core.flows.registry import open_app
    from core.models import uses_bundled_model

    if warm and (uses_bundled_model(settings) or uses_bundled_model(settings, "judge")):
        err(BUNDLED_MODEL_NOTE)
    return open_app(settings, backend=backend, warm=warm)


def err(text: str) -> None:
    """A line on stderr (progress and diagnostics; stdout stays for results)."""
    print(text, file=sys.stderr, flush=True)


def run_async(main: Coroutine[object, None, T]) -> T:
    """`asyncio.run`, importing asyncio only when a command runs: `noema --help` imports every
    command module, and asyncio (with ssl) is a good part of its start-up time."""
    import asyncio

    return asyncio.run(main)


@contextmanager
def stop_on_interrupt(runtime: Runtime, run_id: str, again: str) -> Iterator[None]:
    """Ctrl-C while a run is driven stops it as `c` on home does: the model call is aborted,
    the run is recorded cancelled, and `again` (a command) continues it from its last
    checkpoint."""
    import asyncio  # here, not at the top: see run_async

    try:
        yield
    except (asyncio.CancelledError, KeyboardInterrupt):
        if runtime.mark_stopped(run_id):
            err(f"stopped run {run_id[:8]} at its last checkpoint; {again} continues it")
        raise
