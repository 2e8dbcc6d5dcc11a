"""`noema usage`: model calls, tokens, latency and cost per flow, role, model and day."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tui.commands import settings_from

if TYPE_CHECKING:
    from core.usage import Usage


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "usage",
        help="model calls, tokens, latency and cost from the traces",
        description="Calls, prompt and completion tokens, latency (median, p95) and, for "
        "hosted models, cost (litellm's offline price map) per flow, role, model and day.",
    )
    parser.add_argument("--days", type=int, default=30, help="the last N days (default 30)")
    parser.add_argument("--all", action="store_true", help="every call ever recorded")
    parser.add_argument(
        "--by",
        choices=("flow", "role", "model", "day"),
        action="append",
        help="group by this (repeatable; default: flow, role, model and day)",
    )
    parser.set_defaults(func=run)


def money(cost: float | None) -> str:
    """Dollars with enough digits for cents-scale sums; `-` for models the map does not price."""
    if cost is None:
        return "-"
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s"


def usage_table(title: str, groups: list[Usage]) -> str:
    """A plain-text table of `core.usage.Usage` rows under a title."""
    rows = [(title.upper(), "CALLS", "FAILED", "PROMPT", "COMPLETION", "MEDIAN", "P95", "COST")]
    for u in groups:
        rows.append(
            (
                u.key,
                str(u.calls),
                str(u.failed),
                f"{u.prompt_tokens:,}",
                f"{u.completion_tokens:,}",
                seconds(u.median_ms),
                seconds(u.p95_ms),
                money(u.cost),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from core.store import Store
    from core.usage import GROUPINGS, load_calls, summarize, total

    if args.days < 1:
        from tui.commands import CommandError

        raise CommandError("--days must be at least 1")
    settings = settings_from(args)
    store = Store(settings.store_path)
    try:
        calls = load_calls(store, None if args.all else args.days)
    finally:
        store.close()
    window = "ever" if args.all else f"in the last {args.days} days"
    if not calls:
        print(f"no model calls recorded {window}")
        return 0
    overall = total(calls)
    print(
        f"{overall.calls} model calls {window}: {overall.prompt_tokens:,} prompt + "
        f"{overall.completion_tokens:,} completion tokens, median {seconds(overall.median_ms)},"
        f" p95 {seconds(overall.p95_ms)}, cost {money(overall.cost)}"
    )
    for by in args.by or GROUPINGS:
        print()
        print(usage_table(by, summarize(calls, by)))
    return 0
