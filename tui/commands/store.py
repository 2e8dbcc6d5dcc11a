"""`noema store migrate --to postgres URL`: move shared state (runs, checkpoints, reviews,
journals, sessions, mastery) from this data directory's SQLite store into PostgreSQL."""

from __future__ import annotations

import argparse

from tui.commands import CommandError, settings_from


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "store", help="the shared store: copy it into PostgreSQL", description=__doc__
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    migrate = commands.add_parser(
        "migrate",
        help="copy the SQLite store's shared state into an empty PostgreSQL database",
        description="Copies runs, LangGraph checkpoints, traces, extraction commits, merge "
        "reviews and journals, lessons, tutor sessions and mastery into PostgreSQL, then "
        "checks every count. The vault index stays local. The database password comes from "
        "the environment variable --password-env names (or libpq's PGPASSWORD), never from "
        "the command line.",
    )
    migrate.add_argument("--to", required=True, choices=["postgres"], help="target backend")
    migrate.add_argument("url", help="postgresql://USER@HOST:PORT/DATABASE (no password)")
    migrate.add_argument(
        "--password-env",
        metavar="NAME",
        help="environment variable holding the password "
        "(default: store.password_env of the settings)",
    )
    migrate.set_defaults(func=run_migrate)


def run_migrate(args: argparse.Namespace) -> int:
    from core.settings.sections import PASSWORD_IN_FILE, StoreSettings, url_has_password
    from core.store import StoreError
    from core.store.copy import migrate_to_postgres
    from core.store.open import conninfo, label

    settings = settings_from(args)
    if url_has_password(args.url):
        raise CommandError(f"the URL holds a password; {PASSWORD_IN_FILE}")
    if not settings.store_path.exists():
        raise CommandError(f"no SQLite store at {settings.store_path}: nothing to migrate")
    env = args.password_env if args.password_env is not None else settings.store.password_env
    try:
        target = StoreSettings(backend="postgres", url=args.url, password_env=env or "")
    except ValueError as exc:
        raise CommandError(str(exc).splitlines()[-1]) from exc
    try:
        copied = migrate_to_postgres(settings, conninfo(target), label(args.url))
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    print(report(copied, args.url, target.password_env))
    return 1 if copied.mismatches else 0


def report(copied, url: str, password_env: str) -> str:
    lines = [f"copied into {url} in {copied.seconds:.1f} s:"]
    rows = [(name, source, target) for name, (source, target) in copied.tables.items()]
    rows += [
        ("checkpoints (LangGraph)", *copied.checkpoints),
        ("checkpoint writes", *copied.writes),
    ]
    width = max(len(name) for name, _, _ in rows)
    for name, source, target in rows:
        mark = "" if source == target else f"   MISMATCH: {source} in SQLite"
        lines.append(f"  {name.ljust(width)}  {target:>8} row(s){mark}")
    if copied.mismatches:
        lines += ["counts differ:", *(f"  {m}" for m in copied.mismatches)]
        return "\n".join(lines)
    same, threads = copied.threads
    lines.append(f"every count matches; {same} of {threads} run(s) end at the same checkpoint.")
    lines += [
        "To use it, put this in your settings file (and on every machine that shares it):",
        "  [store]",
        '  backend = "postgres"',
        f'  url = "{url}"',
    ]
    if password_env:
        lines.append(f'  password_env = "{password_env}"')
    return "\n".join(lines)
