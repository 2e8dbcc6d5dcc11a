"""`noema runs`: the runs table (queued, running, awaiting review, done, failed)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, get_args

from core.run_status import RunStatus
from tui.commands import plain

if TYPE_CHECKING:
    from core.store.runs import RunRecord

STATUSES = get_args(RunStatus)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("runs", help="list workflow runs", description=plain(__doc__))
    parser.add_argument("--status", choices=STATUSES, help="only runs with this status")
    parser.add_argument("--flow", help="only runs of this flow")
    parser.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    parser.set_defaults(func=run)


def format_runs(runs: list[RunRecord]) -> str:
    """A plain-text table, newest first."""
    if not runs:
        return "no runs"
    rows = [("ID", "STATUS", "FLOW", "TARGET", "UPDATED")]
    for record in runs:
        rows.append(
            (
                record.id[:8],
                "queued (interrupted)" if record.interrupted else record.status,
                record.flow,
                record.target or "-",
                record.updated_at[:19],
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
    ]
    errors = [f"  {r.id[:8]}: {r.error}" for r in runs if r.status == "failed" and r.error]
    notes = [f"  {r.id[:8]}: {r.error}" for r in runs if r.interrupted]
    if errors:
        lines += ["", "errors:", *errors]
    if notes:
        lines += ["", "interrupted (the app starts them again when it opens):", *notes]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from core.leases import Leases
    from core.store import open_store
    from core.store.runs import RunsRepo
    from tui.commands import require_vault, settings_from

    settings = settings_from(args)
    require_vault(settings)  # the runs belong to a vault: without one, say so, not "no runs"
    store = open_store(settings)
    try:
        repo = RunsRepo(store)
        repo.recover_interrupted(Leases.of_store(store))  # a run whose process died is not running
        runs = repo.list(status=args.status, flow=args.flow)[: args.limit]
    finally:
        store.close()
    print(format_runs(runs))
    return 0
