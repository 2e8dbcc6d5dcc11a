"""`noema index` (sync the vault into the store), `noema watch` (the headless watcher) and
`noema search` (concepts and quotes)."""

from __future__ import annotations

import argparse
import sys
import threading

from tui.commands import CommandError, err, require_vault, settings_from


def register(subparsers: argparse._SubParsersAction) -> None:
    index = subparsers.add_parser(
        "index",
        help="index the vault (incremental)",
        description="Sync the vault into the "
        "store: changed notes by mtime and hash, deletions, renames, changed embeddings.",
    )
    index.set_defaults(func=run_index)
    watch = subparsers.add_parser(
        "watch",
        help="watch the vault and queue extraction runs until Ctrl-C",
        description="Watch the vault: keep the index current and queue an extraction run for "
        "every new or changed unprocessed source note. Stop with Ctrl-C.",
    )
    watch.set_defaults(func=run_watch)
    search = subparsers.add_parser(
        "search",
        help="search concepts and the quotes of sources",
        description="Full-text search (accents ignored) over concept notes and the quotes of "
        "source notes, in the index (run `noema index` first).",
    )
    search.add_argument("query", nargs="+", help="words to look for")
    search.add_argument("-k", type=int, default=10, help="how many of each (default 10)")
    search.set_defaults(func=run_search)


class ProgressBar:
    """A one-line progress bar on stderr (`done/total path`), redrawn in place."""

    def __init__(self, width: int = 30, stream=None) -> None:
        self.width = width
        self.stream = stream or sys.stderr
        self.drawn = False

    def __call__(self, done: int, total: int, path: str) -> None:
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        name = path if len(path) <= 40 else "…" + path[-39:]
        self.stream.write(f"\r[{bar}] {done}/{total} {name}".ljust(90))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def run_index(args: argparse.Namespace) -> int:
    from core.ingest import index_vault
    from core.models import build_client
    from core.store import open_store

    settings = settings_from(args)
    require_vault(settings)
    store = open_store(settings)
    bar = ProgressBar()
    try:
        embed, embed_model = None, ""
        if settings.models.embeddings_enabled:
            embed = build_client(settings, store).embed
            embed_model = settings.role("embedding").model or settings.models.model
        result = index_vault(settings, store, bar, embed=embed, embed_model=embed_model)
    finally:
        bar.close()
        store.close()
    print(f"indexed {settings.vault.path}: {result.summary()}")
    for line in index_report(result):
        print(f"  {line}")
    return 0


def index_report(result) -> list[str]:
    """What a sync left out, one line each: entries not read and why, notes each exclusion
    rule kept out, and notes that need fixing."""
    lines = [f"skipped: {entry.path}: {entry.reason}" for entry in result.skipped]
    lines += [f"excluded: {n} note(s) ({why})" for why, n in sorted(result.excluded.items())]
    return lines + [f"warning: {warning}" for warning in result.warnings]


def run_search(args: argparse.Namespace) -> int:
    from core.store import Store
    from vault.search import search_text

    settings = settings_from(args)
    require_vault(settings)
    store = Store(settings.store_path)
    try:
        result = search_text(store, " ".join(args.query), args.k, quotes=True)
    finally:
        store.close()
    for hit in result.hits:
        print(f"concept  {hit.title}  ({hit.path})")
    for quote in result.quotes:
        where = f" @{quote.location}" if quote.location else ""
        text = quote.text if len(quote.text) <= 100 else quote.text[:99] + "…"
        print(f"quote    [[{quote.link_target}]]{where}  {text}")
    if not (result.hits or result.quotes):
        print("nothing found")
    return 0


def _print_batch(events, queued) -> None:
    for event in events:
        moved = f" (from {event.old_path})" if event.old_path else ""
        print(f"{event.kind:9} {event.path}{moved}", flush=True)
    for record in queued:
        print(f"queued    {record.flow} run {record.id[:8]} for {record.target}", flush=True)


def run_watch(args: argparse.Namespace) -> int:
    from core.ingest import start_watching
    from core.store import open_store

    settings = settings_from(args)
    require_vault(settings)
    store = open_store(settings)
    try:
        watcher, ingest, _writer = start_watching(settings, store)
    except OSError as exc:
        store.close()
        raise CommandError(f"cannot watch {settings.vault.path}: {exc}") from exc
    for record in ingest.queued:
        print(f"queued    {record.flow} run {record.id[:8]} for {record.target}", flush=True)
    ingest.listeners.append(_print_batch)
    err(f"{watcher.status}; Ctrl-C to stop")
    stop = threading.Event()
    try:
        while not stop.wait(0.5):
            for problem in list(watcher.errors):
                err(f"watcher error: {problem}")
                watcher.errors.remove(problem)
    except KeyboardInterrupt:
        err("stopping the watcher")
    finally:
        watcher.stop()
        store.close()
    return 0
