"""Watch the vault: debounced per path, bursts collapsed, moves handled, own writes ignored.

Decisions are keyed on content hash, so a duplicate event (or an editor that rewrites the
same bytes) does nothing. The watcher never acts itself: it hands batches of `VaultEvent`s
to a callback (core.ingest queues runs; the TUI only posts messages from it).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from vault.layout import VaultLayout
from vault.note import content_hash

PAIR_WINDOW_S = 0.6
"""How long a creation or deletion waits for the other half of a move."""

EventKind = Literal["created", "modified", "deleted", "moved"]


@dataclass(frozen=True)
class VaultEvent:
    """A settled change of one note."""

    kind: EventKind
    path: str
    """Vault-relative POSIX path (the new path for moves)."""
    old_path: str | None = None
    hash: str | None = None
    """Content hash now; for a deleted note the last one seen."""


Callback = Callable[[list[VaultEvent]], object]


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: VaultWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        src = self.watcher.rel(event.src_path)
        dest = self.watcher.rel(getattr(event, "dest_path", "") or "")
        if event.event_type == "moved":
            self.watcher.touch(src)
            self.watcher.touch(dest, moved_from=src)
        else:
            self.watcher.touch(src)


class VaultWatcher:
    """A watchdog observer (or a polling one) over one vault."""

    def __init__(
        self,
        root: Path,
        callback: Callback,
        layout: VaultLayout | None = None,
        *,
        debounce_s: float = 0.4,
        polling: bool = False,
        poll_interval_s: float = 1.0,
        known_hashes: dict[str, str] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.callback = callback
        self.layout = layout or VaultLayout()
        self.debounce_s = debounce_s
        self.polling = polling
        self.poll_interval_s = poll_interval_s
        self.recent: deque[VaultEvent] = deque(maxlen=50)
        """The last events handed to the callback (the home screen shows them)."""
        self.errors: deque[str] = deque(maxlen=20)
        self._hashes: dict[str, str] = dict(known_hashes or {})
        self._expected: dict[str, str] = {}
        self._pending: dict[str, tuple[float, str | None]] = {}
        self._held: list[tuple[float, VaultEvent]] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._observer: BaseObserver | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def status(self) -> str:
        mode = "polling" if self.polling else "native events"
        return f"watching {self.root} ({mode})" if self.running else "stopped"

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        observer = PollingObserver(timeout=self.poll_interval_s) if self.polling else Observer()
        observer.schedule(_Handler(self), str(self.root), recursive=True)
        observer.start()
        self._observer = observer
        self._thread = threading.Thread(target=self._loop, name="noema-vault-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> VaultWatcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- inputs --------------------------------------------------------------------------

    def expect_write(self, rel: str, new_hash: str) -> None:
        """Register noema's own write (VaultWriter's on_write): it will not come back as an
        event. An empty hash announces that the path goes away (archive, move)."""
        with self._lock:
            self._expected[rel] = new_hash

    def rel(self, path: str | bytes) -> str | None:
        """The vault-relative path of a note the watcher cares about, else None."""
        if not path:
            return None
        path = path.decode() if isinstance(path, bytes) else path
        try:
            rel = Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None
        if not rel.endswith(".md") or self.layout.is_excluded(rel):
            return None
        return rel

    def touch(self, rel: str | None, moved_from: str | None = None) -> None:
        """Note that a path had an event; it is looked at once it stays quiet."""
        if rel is None:
            return
        with self._lock:
            previous = self._pending.get(rel)
            origin = moved_from or (previous[1] if previous else None)
            self._pending[rel] = (time.monotonic() + self.debounce_s, origin)
        self._wake.set()

    # -- settling ------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=self.debounce_s / 2)
            self._wake.clear()
            self.flush()
        self.flush(force=True)

    def flush(self, force: bool = False) -> list[VaultEvent]:
        """Settle every path that has been quiet for the debounce time; call the callback."""
        now = time.monotonic()
        with self._lock:
            ready = [p for p, (due, _) in self._pending.items() if force or due <= now]
            items = [(p, self._pending.pop(p)[1]) for p in ready]
        decided = [e for p, origin in items if (e := self._decide(p, origin)) is not None]
        events = self._hold_unpaired(_pair_moves([e for _, e in self._held] + decided), force)
        if events:
            self.recent.extend(events)
            try:
                self.callback(events)
            except Exception as exc:  # a failing callback must not kill the watcher
                self.errors.append(f"{type(exc).__name__}: {exc}")
        return events

    def _hold_unpaired(self, events: list[VaultEvent], force: bool) -> list[VaultEvent]:
        """Keep creations and deletions back a little longer: when a note is renamed into a
        folder the observer did not watch yet, the two halves of the move arrive apart
        (watchdog waits about 0.5 s for a rename's second half), and pair only then."""
        now = time.monotonic()
        due_of = {id(e): due for due, e in self._held}
        ready, held = [], []
        for event in events:
            if event.kind in ("created", "deleted") and not force:
                due = due_of.get(id(event), now + max(self.debounce_s, PAIR_WINDOW_S))
                if due > now:
                    held.append((due, event))
                    continue
            ready.append(event)
        self._held = held
        return ready

    def _decide(self, rel: str, moved_from: str | None) -> VaultEvent | None:
        full = self.root / rel
        try:
            digest = content_hash(full.read_bytes()) if full.is_file() else None
        except OSError:
            digest = None
        with self._lock:
            expected = self._expected.pop(rel, None)
            previous = self._hashes.get(rel)
            if digest is None:
                self._hashes.pop(rel, None)
            else:
                self._hashes[rel] = digest
        if expected is not None and expected == (digest or ""):
            return None  # noema's own write
        if digest is None:
            return VaultEvent("deleted", rel, None, previous) if previous is not None else None
        if digest == previous:
            return None  # duplicate event or same bytes rewritten
        if moved_from and moved_from != rel and not (self.root / moved_from).exists():
            return VaultEvent("moved", rel, moved_from, digest)
        return VaultEvent("created" if previous is None else "modified", rel, None, digest)


def _pair_moves(events: list[VaultEvent]) -> list[VaultEvent]:
    """Drop the deletion behind a move; a deletion and a creation of the same content in one
    batch are a move whose rename event was not seen (e.g. into a brand-new folder)."""
    moved_from = {e.old_path for e in events if e.kind == "moved"}
    deleted = {e.hash: e for e in events if e.kind == "deleted" and e.path not in moved_from}
    result, paired = [], set()
    for event in events:
        if event.kind == "deleted" and event.path in moved_from:
            continue
        if event.kind == "created" and event.hash in deleted and event.hash not in paired:
            paired.add(event.hash)
            event = VaultEvent("moved", event.path, deleted[event.hash].path, event.hash)
        result.append(event)
    gone = {deleted[h].path for h in paired}
    return [e for e in result if not (e.kind == "deleted" and e.path in gone)]
