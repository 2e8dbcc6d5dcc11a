"""`noema demo`: a sample vault, a model that answers, then the TUI on it."""

from __future__ import annotations

import argparse
from pathlib import Path

from tui.commands import CommandError, settings_from


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="try noema on a copy of the sample vault",
        description="Copy the sample vault to a new folder, write a settings file for it, use "
        "the configured model if it answers or else the bundled local one (provider = "
        '"local"), index, and open the app.',
    )
    parser.add_argument(
        "--path",
        type=Path,
        default=None,
        help="where to put the vault (default ./noema-demo-vault)",
    )
    parser.add_argument(
        "--no-tui", action="store_true", help="set everything up, report, and exit (for CI)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tui import demo as demo_mod

    base = settings_from(args)
    say = lambda text: print(text, flush=True)  # noqa: E731
    try:
        demo = demo_mod.prepare(args.path or demo_mod.DEFAULT_PATH, base, say)
    except demo_mod.DemoError as exc:
        raise CommandError(str(exc)) from exc
    try:
        if args.no_tui:
            say(f"Ready: vault {demo.vault}, model: {demo.model_note}.")
            say(f"Open it with: noema --settings {demo.settings_file}")
            if demo.local:
                say("(any command with these settings starts the bundled model when it needs it)")
            return 0 if demo.connection is None or demo.connection.ok else 1
        from tui.app import NoemaApp

        NoemaApp(demo.settings, settings_path=demo.settings_file).run()
    finally:
        demo.close()
    return 0
