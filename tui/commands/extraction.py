"""`noema extract NOTE`, `noema review RUN` and `noema repair`.

`extract` runs the concept extraction of a source note headless up to its review and prints
the report (a source whose run another noema process drives is followed, never run twice);
`review` approves, sends feedback, drops items or aborts from the terminal (without an
action it prints the report again); `repair` finishes extraction commits whose vault half a
crash interrupted, queues runs a killed process left `running`, removes its temporary files
and names merge applies left halfway (the app does the same at start-up).
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from datetime import datetime

    from core.events import RunEvent
    from core.flows.extraction.state import ExtractionReview
    from core.services import Services
    from core.settings import Settings
    from core.store.runs import RunRecord
    from core.vault_handle import VaultHandle
    from local_llm import Backend

from tui.commands import (
    CommandError,
    err,
    open_flows,
    require_vault,
    run_async,
    settings_from,
    stop_on_interrupt,
    vault_of,
)

FLOW = "extraction"


def register(subparsers: argparse._SubParsersAction) -> None:
    extract = subparsers.add_parser(
        "extract",
        help="extract concepts from a source note, up to the review",
        description="Extract concepts from a source note and its quotes, headless, up to the "
        "review: prints the proposed concepts, duplicates and relations, and the command that "
        "answers the review (noema review RUN). Running it again on a source with a run "
        "waiting shows that run's review.",
    )
    extract.add_argument(
        "note", metavar="NOTE", nargs="?", help="vault-relative path or name of a source note"
    )
    extract.add_argument(
        "--again", action="store_true", help="extract a source that is already processed"
    )
    extract.add_argument(
        "--all",
        action="store_true",
        dest="all_sources",
        help="every unprocessed source, each its own run, several at once (the backlog)",
    )
    extract.set_defaults(func=run_extract)
    review = subparsers.add_parser(
        "review",
        help="approve, give feedback on, or abort an extraction review",
        description="Answer an extraction run waiting at its review: --approve writes the "
        "concept notes, --feedback asks the model for changes, --drop leaves items out, "
        "--abort writes nothing. Without an action the review is printed again.",
    )
    review.add_argument("run", metavar="RUN", help="run id (a prefix is enough)")
    action = review.add_mutually_exclusive_group()
    action.add_argument("--approve", action="store_true", help="commit the extraction")
    action.add_argument("--feedback", metavar="TEXT", help="ask the model for changes")
    action.add_argument("--abort", action="store_true", help="abandon the run; nothing is written")
    review.add_argument(
        "--drop",
        action="append",
        default=[],
        metavar="ITEM",
        help="drop an item first: concept:ID, relation:ID or quote:CONCEPT_ID:QUOTE_ID (repeatable)",
    )
    review.set_defaults(func=run_review)
    repair = subparsers.add_parser(
        "repair",
        help="finish what a crash interrupted: commits, runs, temporary files",
        description="Finish what a crash interrupted: extraction commits whose vault half was "
        "not written, runs left running (queued again), noema's temporary files in the vault; "
        "then list the files written. The app does the same at start-up.",
    )
    repair.set_defaults(func=run_repair)


def resolve_source(root: Path, folder: str, note: str) -> str:
    """A vault-relative path for NOTE: a path as given, else a note of that name in sources."""
    from vault.containment import contained

    candidate = note if note.endswith(".md") else f"{note}.md"
    for rel in (candidate, f"{folder}/{candidate}"):
        if (root / rel).is_file():
            if contained(root, rel) is None:
                raise CommandError(f"{rel} leads outside the vault (a symlink?); it is not read")
            return rel
    matches = sorted(
        p
        for p in (root / folder).rglob("*.md")
        if p.stem.lower() == Path(note).stem.lower()
        and contained(root, p.relative_to(root).as_posix()) is not None
    )
    if len(matches) == 1:
        return matches[0].relative_to(root).as_posix()
    raise CommandError(
        f"no source note {note!r} in {root}" if not matches else f"{note!r} is ambiguous"
    )


def processed_on(vault: VaultHandle | None, rel: str) -> datetime | None:
    """When the source note was processed (its frontmatter's processed_date), or None."""
    from core.sources import SourceNeedsFixing, read_source
    from vault.note import NoteUnreadable

    if vault is None:
        raise CommandError("no vault is configured (set vault.path)")
    try:
        source, _quotes = read_source(vault.root, rel, vault.layout.max_note_bytes)
    except (NoteUnreadable, SourceNeedsFixing) as exc:
        raise CommandError(str(exc)) from exc
    return source.processed_date


CLI_ACTIONS = {
    "approve": "--approve",
    "feedback": "--feedback TEXT",
    "drop": "--drop concept:ID",
    "abort": "--abort",
}


def print_report(payload: object, run_id: str) -> None:
    from core.flows.extraction.report import report_text
    from core.flows.extraction.state import ExtractionReview

    review = ExtractionReview.model_validate(payload)
    print(report_text(review))
    actions = [CLI_ACTIONS[a] for a in review.actions if a in CLI_ACTIONS]
    print(f"\nrun {run_id[:8]}: noema review {run_id[:8]} " + " | ".join(actions))


async def drive(services: Services, events: AsyncIterator[RunEvent]) -> int:
    """Print progress, then the report (review) or the outcome (end)."""
    from core.events import Done, Failed, Interrupted, Progress

    async for event in events:
        if isinstance(event, Progress):
            step = event.data.get("step")  # the critique's rubric lines have none: indented
            err(f"{f'[{step}]' if step else '     '} {event.data.get('message', '')}")
        elif isinstance(event, Interrupted):
            print_report(event.payload, event.run_id)
        elif isinstance(event, Failed):
            target = services.runtime.runs.get(event.run_id).target
            raise CommandError(
                f"extraction of {target} failed: {event.error}; run `noema extract "
                f"{shlex.quote(target)}` again to resume it from the step that failed"
            )
        elif isinstance(event, Done):
            for message in event.output.get("messages", [])[-1:]:
                print(message)
    return 0


def run_extract(args: argparse.Namespace, backend: Backend | None = None) -> int:
    all_sources = getattr(args, "all_sources", False)  # callers building their own Namespace
    if bool(args.note) == bool(all_sources):
        raise CommandError("give a source NOTE or --all (every unprocessed source), not both")
    settings = settings_from(args)
    require_vault(settings)
    if all_sources:
        from tui.commands.bulk import extract_all

        return run_async(extract_all(settings, backend))
    return run_async(_extract(settings, args.note, backend, again=getattr(args, "again", False)))


async def _extract(
    settings: Settings, note: str, backend: Backend | None, *, again: bool = False
) -> int:
    from core.repair import repair

    async with open_flows(settings, backend=backend) as services:
        vault = vault_of(services)
        rel = resolve_source(vault.root, vault.layout.sources, note)
        repair(services)
        await vault.index.sync_async()
        return await follow(services, rel, again=again)


ACTIVE = ("queued", "running", "awaiting_review", "failed", "cancelled")
"""A source's run in one of these is continued (a cancelled one from its last checkpoint)."""


async def follow(services: Services, rel: str, *, again: bool = False) -> int:
    """Drive the source's active run, start one if there is none, or join the one another
    noema process is driving (wait for it, then show where it stopped). Never two runs.
    `again`: a processed source is extracted once more instead of skipped."""
    from core.runtime import RunBusy

    while True:
        active = [
            r
            for r in services.runtime.list_runs(flow=FLOW)
            if r.target == rel and r.status in ACTIVE
        ]
        done = processed_on(services.vault, rel)
        if not active and done is not None and not again:
            print(
                f"{rel} was already processed on {done:%Y-%m-%d}; nothing to do "
                f"(extract it again with: noema extract {shlex.quote(rel)} --again)."
            )
            return 0  # no run recorded: a "done" run per call would only clutter the runs list
        data = {"source": rel, "again": done is not None}
        run = active[0] if active else services.runtime.start_once(FLOW, data, rel)
        if run is None:
            continue  # another process queued one just now: join it
        if await _print_pending(services, run):
            return 0
        try:
            with stop_on_interrupt(services.runtime, run.id, f"`noema extract {shlex.quote(rel)}`"):
                return await drive(services, services.runtime.stream(run.id))
        except RunBusy as busy:
            err(f"{busy}; following it until it stops")
            await services.runtime.wait_until_free(run.id)


async def _print_pending(services: Services, run: RunRecord) -> bool:
    """Print the report of a run that waits for its review; False when it does not."""
    if run.status not in ("awaiting_review", "queued", "failed"):
        return False
    pending = await services.runtime.pending_interrupt(run.id)
    if pending is None:
        return False
    print_report(pending.payload, run.id)
    return True


def parse_drops(items: list[str], review: ExtractionReview) -> list[dict[str, str]]:
    """`concept:ID`, `relation:ID`, `quote:CONCEPT_ID:QUOTE_ID` (id prefixes allowed)."""
    concepts = [c.id for c in review.concepts] + [e.concept_id for e in review.existing]
    relations = [r.id for r in review.relations]

    def one(prefix: str, ids: list[str], what: str) -> str:
        found = [i for i in ids if i.startswith(prefix)]
        if len(found) != 1:
            raise CommandError(f"no single {what} starts with {prefix!r}")
        return found[0]

    drops = []
    for item in items:
        kind, _, rest = item.partition(":")
        if kind == "concept":
            drops.append({"kind": "concept", "id": one(rest, concepts, "concept")})
        elif kind == "relation":
            drops.append({"kind": "relation", "id": one(rest, relations, "relation")})
        elif kind == "quote" and ":" in rest:
            concept, quote = rest.split(":", 1)
            drops.append(
                {
                    "kind": "attribution",
                    "concept_id": one(concept, concepts, "concept"),
                    "quote_id": quote,
                }
            )
        else:
            raise CommandError(
                f"cannot read --drop {item!r}: use concept:ID, relation:ID or quote:CONCEPT_ID:QUOTE_ID"
            )
    return drops


def run_review(args: argparse.Namespace, backend: Backend | None = None) -> int:
    settings = settings_from(args)
    require_vault(settings)
    return run_async(_review(settings, args, backend))


async def _review(settings: Settings, args: argparse.Namespace, backend: Backend | None) -> int:
    from core.runtime import RunBusy

    # only feedback asks the model again; approving or aborting does not
    async with open_flows(settings, backend=backend, warm=bool(args.feedback)) as services:
        try:
            run = services.runtime.runs.find(args.run)
        except KeyError as exc:
            raise CommandError(str(exc.args[0])) from exc
        waited = False
        while True:
            try:
                return await _answer(services, services.runtime.runs.get(run.id), args, waited)
            except RunBusy as busy:
                err(f"{busy}; waiting for it")
                await services.runtime.wait_until_free(run.id)
                waited = True


async def _answer(
    services: Services, run: RunRecord, args: argparse.Namespace, waited: bool
) -> int:
    """Answer the run's review as the arguments say (RunBusy while another process drives it)."""
    pending = (
        await services.runtime.pending_interrupt(run.id)
        if run.status in ("awaiting_review", "queued", "failed")
        else None
    )
    if pending is None:
        if waited:
            print(f"run {run.id[:8]} was answered by another process meanwhile; it is {run.status}")
            return 0
        hint = f"; continue it with: noema extract {run.target!r}" if run.status in ACTIVE else ""
        raise CommandError(f"run {run.id[:8]} is {run.status}, not awaiting review{hint}")
    from core.flows.extraction.state import ExtractionReview

    review = ExtractionReview.model_validate(pending.payload)
    drops = parse_drops(args.drop, review)
    refuse_unavailable(args, review)
    if args.abort:
        value: dict[str, object] = {"action": "abort"}
    elif args.approve:
        refuse_empty_approval(review, drops, run.target)
        value = {"action": "approve", "drops": drops}
    elif args.feedback:
        value = {"action": "feedback", "feedback": args.feedback, "drops": drops}
    elif drops:
        value = {"action": "drop", "drops": drops}
    else:
        print_report(pending.payload, run.id)
        return 0
    from core.runtime import NotAwaitingReview

    try:
        with stop_on_interrupt(
            services.runtime, run.id, f"`noema extract {shlex.quote(run.target)}`"
        ):
            return await drive(services, services.runtime.resume(run.id, value))
    except NotAwaitingReview:  # answered by another process between the check and the lease
        status = services.runtime.runs.get(run.id).status
        print(f"run {run.id[:8]} was answered by another process meanwhile; it is {status}")
        return 0


def refuse_empty_approval(
    review: ExtractionReview, drops: list[dict[str, str]], target: str
) -> None:
    """Approving a review that keeps nothing would only mark the source processed."""
    from core.flows.extraction.report import writes_nothing

    if writes_nothing(review, drops):
        raise CommandError(
            f"nothing to approve: no concept is kept and no quote is linked, so approving would "
            f"only mark {target} processed; ask for changes with --feedback TEXT, or --abort "
            f"(the source stays unprocessed)"
        )


def _waiting_for(run_id: str, holder: str) -> None:
    err(f"another noema process ({holder or 'unknown'}) is writing run {run_id[:8]}; waiting")


def refuse_unavailable(args: argparse.Namespace, review: ExtractionReview) -> None:
    """An answer the review does not offer now is refused before the run is touched."""
    actions = review.actions
    if args.approve and "approve" not in actions:
        raise CommandError(
            "nothing to commit: the review has no concepts and no quote "
            "attributions; give --feedback TEXT or --abort"
        )
    if args.feedback and "feedback" not in actions:
        raise CommandError(
            "no feedback rounds are left (flows.extraction.max_review_rounds): "
            "--approve what stands, or --abort"
        )


def run_repair(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    require_vault(settings)

    async def go() -> int:
        from core.flows.registry import open_app
        from core.repair import finish_approved, repair

        async with open_app(settings, warm=False) as services:
            report = repair(services, on_wait=_waiting_for)
            report.finished += await finish_approved(services)
        print(report.summary())
        for path in report.written:
            print(f"  {path}")
        return 1 if report.errors or report.abandoned or report.unfinished_merges else 0

    return run_async(go())
