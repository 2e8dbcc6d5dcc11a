"""The `noema` command line: `noema` opens the TUI; sub-commands run everything headless.

Adding a command group (one module per group):

1. Write `tui/commands/<name>.py` with `register(subparsers)`. It adds its parsers with
   `subparsers.add_parser(...)` and sets a handler: `parser.set_defaults(func=run)`, where
   `run(args) -> int` returns the exit code. Load settings with
   `tui.commands.settings_from(args)`; raise `tui.commands.CommandError` for a problem the
   user can fix (printed as one line, exit 1). Import heavy modules inside the handler so
   `noema --help` stays fast.
2. Add `"tui.commands.<name>"` to `COMMAND_MODULES` below: that one line is all.

An invalid settings file is reported once (file, key, problem) with exit code 2, never a
traceback: every handler that calls `settings_from(args)` gets that for free.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from core.settings import SettingsError
from tui.commands import CommandError, settings_from

COMMAND_MODULES: list[str] = [
    "tui.commands.demo",  # noema demo
    "tui.commands.doctor",  # noema doctor
    "tui.commands.evaluate",  # noema evaluate, noema criteria
    "tui.commands.lesson",  # noema lesson generate / review / savings
    "tui.commands.extraction",  # noema extract, noema review, noema repair
    "tui.commands.normalization",  # noema normalize, noema merges
    "tui.commands.runs",  # noema runs
    "tui.commands.store",  # noema store migrate
    "tui.commands.tutor",  # noema tutor, noema tutor sessions / logs
    "tui.commands.usage",  # noema usage
    "tui.commands.vault",  # noema index, noema watch
]
"""Every command group's module; each exposes `register(subparsers)`."""

EXIT_SETTINGS = 2


def build_parser() -> argparse.ArgumentParser:
    """The parser with the global options and every registered command group."""
    parser = argparse.ArgumentParser(
        prog="noema",
        description="A local-first learning workbench over your Obsidian vault. "
        "Without a command, opens the terminal app.",
    )
    parser.add_argument(
        "--settings",
        metavar="PATH",
        help="settings file (default: $NOEMA_SETTINGS, else ~/.config/noema/settings.toml)",
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    parser.set_defaults(func=open_tui)
    return parser


def open_tui(args: argparse.Namespace) -> int:
    """`noema` without a command: the Textual app on the configured vault."""
    settings = settings_from(args)
    from tui.app import NoemaApp

    NoemaApp(settings, settings_path=getattr(args, "settings", None), first_run=True).run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `noema` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SettingsError as exc:
        print(f"noema: invalid settings:\n{exc}", file=sys.stderr)
        return EXIT_SETTINGS
    except CommandError as exc:
        print(f"noema: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return stdout_closed()
    except Exception as exc:
        from core.store.db import StoreError

        if not isinstance(exc, StoreError):
            raise
        print(f"noema: {exc}", file=sys.stderr)
        return 1


def stdout_closed() -> int:
    """The reader of our output went away (`noema runs | head -3`): stop quietly as cat does,
    with the shell's status for SIGPIPE. Standard output goes to /dev/null so that flushing it
    at exit does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141


if __name__ == "__main__":
    sys.exit(main())
