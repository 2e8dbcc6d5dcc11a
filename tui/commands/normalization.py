"""`noema normalize` and `noema merges list|show|accept|reject|apply|undo`.

`merges canonical REVIEW C NAME --title TITLE` chooses which member of cluster C becomes the
canonical concept, renames it, or both (the TUI's `c` and `t`). `normalize` runs the
normalization flow headless, printing its progress, and stores a review
of the merges it found. Exit codes: 0 done; 1 failed (the model did not answer: `--resume RUN`
redoes the step that failed); 3 partial (some model answers stayed invalid: what they would
have found is missing, each is listed); Ctrl-C stops a run at its last checkpoint and
`--resume RUN` continues it too. `merges apply REVIEW` shows the dry-run diff of the accepted merges
and asks before writing (`--yes` skips the question, `--all` accepts every pending merge
first); an apply interrupted halfway is finished with `--resume` or rolled back with
`merges undo REVIEW`, which restores the vault as it was before the apply.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tui.commands import (
    CommandError,
    err,
    open_flows,
    require_vault,
    run_async,
    settings_from,
    stop_on_interrupt,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Mapping

    from core.events import RunEvent
    from core.merges.catalog import ConceptInfo
    from core.merges.clusters import Cluster
    from core.merges.reviews import Review
    from core.merges.service import Merges, Resumed
    from core.services import Services
    from core.settings import Settings
    from core.store import Store
    from core.store.runs import RunRecord
    from local_llm import Backend

    Ask = Callable[[str], str]
    """Asks the user a question (`input`, or a test's script)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    normalize = subparsers.add_parser(
        "normalize",
        help="find concept notes that are the same idea; store a review",
        description="Look for concept notes that are really the same idea (exact and fuzzy "
        "matches first, then the model), printing progress, and store a review of the "
        "proposed merges. Nothing is written to the vault: review them with noema merges "
        "show / accept / reject, then noema merges apply.",
    )
    normalize.add_argument(
        "--strategy", choices=("auto", "full_list", "blocks"), help="override the settings"
    )
    normalize.add_argument(
        "--resume", metavar="RUN", help="resume a failed run from the step that failed"
    )
    normalize.set_defaults(func=run_normalize)

    merges = subparsers.add_parser(
        "merges",
        help="review, apply and undo concept merges",
        description="Review the merges noema normalize proposed (list, show, accept, reject), "
        "apply the accepted ones after a dry-run diff, and undo an apply byte for byte.",
    )
    actions = merges.add_subparsers(title="actions", metavar="ACTION", required=True)
    actions.add_parser("list", help="reviews and unfinished applies").set_defaults(func=run_list)
    for name, func, text in (
        ("show", run_show, "a review's clusters: canonical <- variants"),
        ("undo", run_undo, "restore the vault to before the review's latest apply"),
    ):
        parser = actions.add_parser(name, help=text)
        parser.add_argument("review", metavar="REVIEW")
        parser.set_defaults(func=func)
    for name, status in (("accept", "accepted"), ("reject", "rejected")):
        parser = actions.add_parser(name, help=f"{name} merges by number (see: noema merges show)")
        parser.add_argument("review", metavar="REVIEW")
        parser.add_argument("numbers", nargs="+", type=int, metavar="N")
        parser.set_defaults(func=run_mark, status=status)
    canonical = actions.add_parser(
        "canonical", help="choose or rename the canonical concept of a cluster (see `merges show`)"
    )
    canonical.add_argument("review", metavar="REVIEW")
    canonical.add_argument("cluster", type=int, metavar="C", help="cluster number")
    canonical.add_argument(
        "concept", nargs="?", metavar="NAME", help="the member that becomes canonical (title or id)"
    )
    canonical.add_argument("--title", metavar="TITLE", help="the canonical's new title")
    canonical.set_defaults(func=run_canonical)
    apply = actions.add_parser("apply", help="apply the accepted merges after a dry-run diff")
    apply.add_argument("review", metavar="REVIEW")
    apply.add_argument("--all", action="store_true", help="accept every pending merge first")
    apply.add_argument("--yes", action="store_true", help="do not ask before writing")
    apply.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    apply.add_argument("--resume", action="store_true", help="finish an interrupted apply")
    apply.set_defaults(func=run_apply)


# -- normalize ------------------------------------------------------------------------------


def run_normalize(args: argparse.Namespace, backend: Backend | None = None) -> int:
    """The `normalize` handler; `backend` is for tests (a scripted model)."""
    settings = settings_from(args)
    require_vault(settings)
    return run_async(_normalize(settings, args.strategy, backend, getattr(args, "resume", None)))


def _run_to_resume(services: Services, prefix: str) -> RunRecord:
    try:
        run = services.runtime.runs.find(prefix)
    except KeyError as exc:
        raise CommandError(str(exc.args[0])) from exc
    if run.flow != "normalization" or run.status not in ("failed", "cancelled"):
        raise CommandError(
            f"run {run.id[:8]} is a {run.flow} run that is {run.status}; "
            "only a failed or stopped normalization run can be resumed"
        )
    return run


async def _normalize(
    settings: Settings, strategy: str | None, backend: Backend | None, resume: str | None = None
) -> int:
    from core.model_failures import skipped_line

    async with open_flows(settings, backend=backend) as services:
        if resume:
            run = _run_to_resume(services, resume)
        else:
            run = services.runtime.start(
                "normalization", {"strategy": strategy} if strategy else {}
            )
        again = f"`noema normalize --resume {run.id[:8]}`"
        with stop_on_interrupt(services.runtime, run.id, again):
            review_id, output = await _follow(services.runtime.stream(run.id), run.id)
        skipped = output.get("skipped") or []
        for entry in skipped:
            err(f"not done: {skipped_line(entry)}")
        print((output.get("messages") or ["Done."])[-1])
        if review_id:
            _print_review(services.store, review_id)
            print(f"review {review_id[:8]}: noema merges apply {review_id[:8]} --all")
    return 3 if skipped else 0


async def _follow(
    events: AsyncIterator[RunEvent], run_id: str
) -> tuple[str | None, dict[str, Any]]:
    """Print a normalization run's progress; the id of the review it stored (if any) and the
    run's output."""
    from core.events import Done, Failed, Progress

    review_id, output = None, {}
    async for event in events:
        if isinstance(event, Progress):
            err(f"[{event.data.get('phase', '')}] {event.data.get('agent_activity', '')}")
            review_id = event.data.get("review_id") or review_id
        elif isinstance(event, Failed):
            raise CommandError(
                f"normalization failed: {event.error}\n"
                f"resume it with: noema normalize --resume {run_id[:8]}"
            )
        elif isinstance(event, Done):
            output = event.output
    return review_id, output


# -- merges ---------------------------------------------------------------------------------


class _Opened:
    """Store and vault of the configured app, without the runtime."""

    def __init__(self, args: argparse.Namespace) -> None:
        from core.flows.registry import open_app
        from core.merges.service import Merges

        settings = settings_from(args)
        require_vault(settings)
        self.services = open_app(settings, warm=False)
        self.merges = Merges(self.services.store, self.services.vault)

    def __enter__(self) -> Merges:
        return self.merges

    def __exit__(self, *exc: object) -> None:
        self.services.store.close()


def _review(merges: Merges, review_id: str) -> Review:
    try:
        return merges.review(review_id)
    except KeyError as exc:
        raise CommandError(str(exc.args[0])) from exc


def _print_review(store: Store, review_id: str) -> None:
    from core.merges.reviews import ReviewsRepo

    review = ReviewsRepo(store).get(review_id)
    for n, item in enumerate(review.items, start=1):
        print(
            f"{n:3}. [{item.status:8}] {item.a_name} = {item.b_name}  ({item.origin}: {item.reason})"
        )


def run_list(args: argparse.Namespace) -> int:
    from core.leases import merge_lease

    with _Opened(args) as merges:
        reviews = merges.reviews.list()
        if not reviews:
            print("no reviews: run `noema normalize`")
        for review in reviews:
            counts = review.counts()
            print(
                f"{review.id[:8]}  {review.status:11}  {len(review.items)} merges"
                f" ({counts['pending']} pending, {counts['accepted']} accepted,"
                f" {counts['rejected']} rejected)  {review.created_at[:16]}"
            )
        for review_id, journal, error in merges.unfinished():
            if not merges.leases.is_free(merge_lease(review_id)):
                print(f"apply of {review_id[:8]} in progress in another noema process")
                continue
            print(f"UNFINISHED apply of {review_id[:8]} (journal {journal}): {error or 'crashed'}")
            print(
                f"  finish: noema merges apply {review_id[:8]} --resume;"
                f" roll back: noema merges undo {review_id[:8]}"
            )
    return 0


def run_show(args: argparse.Namespace) -> int:
    with _Opened(args) as merges:
        review = _review(merges, args.review)
        print(f"review {review.id[:8]} ({review.status}), trend {review.trend}")
        _print_review(merges.store, review.id)
        concepts = merges.concepts()
        for n, cluster in enumerate(merges.clusters(review.id), start=1):
            print(_cluster_line(n, cluster, concepts))
        print(
            f"choose or rename a canonical: noema merges canonical {review.id[:8]} C NAME"
            " [--title TITLE]"
        )
    return 0


def _cluster_line(n: int, cluster: Cluster, concepts: Mapping[str, ConceptInfo]) -> str:
    variants = ", ".join(concepts[v].title for v in cluster.variants)
    return f"  C{n}. {cluster.title(concepts)} <- {variants}"


def _member(cluster: Cluster, concepts: Mapping[str, ConceptInfo], name: str) -> str:
    """The cluster member called `name` (title, case-insensitive, or an id prefix)."""
    wanted = name.strip().casefold()
    found = [m for m in cluster.members if concepts[m].title.casefold() == wanted]
    found = found or [m for m in cluster.members if m.startswith(name.strip())]
    if len(found) != 1:
        names = ", ".join(concepts[m].title for m in cluster.members)
        raise CommandError(f"no single member {name!r} in this cluster; its members: {names}")
    return found[0]


def run_canonical(args: argparse.Namespace) -> int:
    """Choose the canonical of cluster C, rename it, or both (as `c` and `t` in the TUI)."""
    if args.concept is None and args.title is None:
        raise CommandError("name the new canonical (NAME), its new title (--title), or both")
    if args.title is not None and not args.title.strip():
        raise CommandError("--title is empty")
    with _Opened(args) as merges:
        review = _review(merges, args.review)
        if review.status == "applied":
            raise CommandError(f"review {review.id[:8]} is already applied")
        clusters, concepts = merges.clusters(review.id), merges.concepts()
        if not 1 <= args.cluster <= len(clusters):
            raise CommandError(
                f"no cluster C{args.cluster} in review {review.id[:8]}"
                f" ({len(clusters)} clusters; see `merges show`)"
            )
        cluster = clusters[args.cluster - 1]
        chosen = (
            cluster.canonical_id
            if args.concept is None
            else _member(cluster, concepts, args.concept)
        )
        title = args.title.strip() if args.title else None
        merges.reviews.choose_canonical(review.id, chosen, cluster.members, title)
        updated = next(c for c in merges.clusters(review.id) if chosen in c.members)
        print(_cluster_line(args.cluster, updated, concepts))
    return 0


def run_mark(args: argparse.Namespace) -> int:
    with _Opened(args) as merges:
        review = _review(merges, args.review)
        for n in args.numbers:
            if not 1 <= n <= len(review.items):
                raise CommandError(f"no merge {n} in review {review.id[:8]}")
            merges.reviews.set_item(review.id, review.items[n - 1].key, args.status)
        print(f"{len(args.numbers)} merge(s) {args.status}")
    return 0


def _waiting(holder: str) -> None:
    err(f"another noema process ({holder or 'unknown'}) is working on this review; waiting for it")


def run_apply(args: argparse.Namespace, ask: Ask | None = None) -> int:
    from core.merges.journal import ApplyInterrupted
    from vault.writer import VaultWriteError

    ask = ask or input
    with _Opened(args) as merges:
        review = _review(merges, args.review)
        with merges.exclusive(review.id, wait=None, on_wait=_waiting) as waited:
            try:
                return _apply(merges, merges.review(review.id), args, ask, waited)
            except (ApplyInterrupted, VaultWriteError, ValueError) as exc:
                raise CommandError(str(exc)) from exc
            except OSError as exc:  # a note moved or unreadable while planning
                raise CommandError(f"{exc.strerror or exc}: {exc.filename}") from exc


def _apply(merges: Merges, review: Review, args: argparse.Namespace, ask: Ask, waited: bool) -> int:
    """The apply itself (the caller holds the review's lease)."""
    unfinished = merges.unfinished()
    if args.resume:
        if waited and not any(u[0] == review.id for u in unfinished):
            print(f"apply of {review.id[:8]} already finished by another process")
            return 0
        _print_resumed(review.id, merges.resume(review.id))
        return 0
    if review.status == "applied":
        if waited:
            print(f"review {review.id[:8]} already applied by another process")
            return 0
        raise CommandError(
            f"review {review.id[:8]} is already applied"
            f" (noema merges undo {review.id[:8]} rolls it back)"
        )
    merges.vault.index.sync_files()
    if args.all:
        merges.reviews.accept_remaining(review.id)
    plan = merges.plan(review.id)
    if not plan.clusters:
        raise CommandError("no accepted merges: accept some (or use --all)")
    print(plan.diff(), end="")
    print(plan.summary())
    if args.dry_run:
        return 0
    interactive = ask is not input or sys.stdin.isatty()
    if not args.yes and (not interactive or ask("apply? [y/N] ").strip().lower() != "y"):
        print("nothing written")
        return 0
    journal = merges.apply(plan)
    print(f"applied (journal {journal}); undo with: noema merges undo {review.id[:8]}")
    return 0


def _print_resumed(review_id: str, resumed: Resumed) -> None:
    if resumed.replanned:
        print(
            f"changed since the plan: {', '.join(resumed.replanned)}; the apply was rolled"
            " back and planned again over them"
        )
    if resumed.skipped:
        print(f"skipped, kept as they are (changed since the plan): {', '.join(resumed.skipped)}")
    print(f"apply of {review_id[:8]} finished (journal {resumed.journal_id})")


def run_undo(args: argparse.Namespace) -> int:
    from vault.writer import VaultWriteError

    with _Opened(args) as merges:
        review = _review(merges, args.review)
        try:
            with merges.exclusive(review.id, wait=None, on_wait=_waiting) as waited:
                latest = merges.journal.latest(review.id)
                if waited and latest is not None and latest[1] == "undone":
                    print(f"apply of {review.id[:8]} already undone by another process")
                    return 0
                journal = merges.undo(review.id)
        except (VaultWriteError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        print(f"undone (journal {journal}); review {review.id[:8]} is pending again")
    return 0
