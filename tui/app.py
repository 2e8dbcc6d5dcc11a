"""The Textual app: global bindings, services opened in a worker, runs driven in workers.

The screens it opens by name, and the screens that open a run, come from a screen registry
(`tui.registry`: one entry per screen, `DEFAULT_REGISTRY` unless one is passed in).

Everything slow (model, disk, graph) runs in workers that post messages; one
`on_worker_state_changed` handler turns any worker failure into a notification.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.worker import Worker, WorkerState

from core.events import Done, Failed, Interrupted, NodeStarted, RunEvent
from core.services import Services
from core.settings import Settings
from core.store.runs import RunRecord
from local_llm import Backend
from tui.drafts import FILE_NAME as DRAFTS_FILE
from tui.drafts import Drafts
from tui.heap import settle_heap
from tui.messages import (
    IndexProgress,
    RunsChanged,
    RunUpdate,
    ServicesReady,
    VaultChanged,
    WatcherStatus,
)
from tui.model_watch import ModelWatch
from tui.palette import ActionsProvider, ConceptsProvider, ScreensProvider
from tui.registry import DEFAULT_REGISTRY, ScreenRegistry, resolve
from tui.screens.base import NoemaScreen

if TYPE_CHECKING:
    from core.ingest import Ingest
    from vault.watcher import VaultEvent, VaultWatcher

PROGRESS_EVERY_S = 0.1
"""At most this often a progress message per indexing (thousands of files post few)."""
RUN_LOG_RUNS = 20
RUN_LOG_EVENTS = 2000

WATCHER_FAILED = "watcher failed"


class NoemaApp(ModelWatch, App):
    """noema's terminal app. `services`/`backend` may be injected (tests, demo)."""

    CSS_PATH = "app.tcss"
    TITLE = "noema"
    COMMANDS = App.COMMANDS | {ScreensProvider, ActionsProvider, ConceptsProvider}
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("h", "home", "Home", id="app.home"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self,
        settings: Settings,
        *,
        services: Services | None = None,
        backend: Backend | None = None,
        vault_label: str | None = None,
        watch: bool = True,
        settings_path: Path | str | None = None,
        first_run: bool = False,
        registry: ScreenRegistry = DEFAULT_REGISTRY,
    ) -> None:
        super().__init__()
        from core.settings import user_settings_path

        self.settings = settings
        self.settings_path = user_settings_path(settings_path)
        """The user's settings file, where choices made in the app are saved (tui.choices)."""
        self.first_run = first_run
        """Offer to choose the vault (or the demo) when none is configured (`noema` does)."""
        self.registry = registry
        """The screens opened by name and the screens that open a run (tui.registry)."""
        self.services: Services | None = None
        self._injected = services
        self._backend = backend
        self.vault_label = vault_label
        self.watch_vault = watch
        """Whether to watch the vault for changes once the services are open (`App.watch` is
        Textual's method for reactive attributes: not shadowed)."""
        self.watcher: VaultWatcher | None = None
        self.ingest: Ingest | None = None
        self.recent_events: list[VaultEvent] = []
        self.init_model_watch()
        self.driving: set[str] = set()
        """Ids of the runs a worker is executing right now."""
        self.run_workers: dict[str, Worker] = {}
        """The worker driving each run in `driving` (cancelled to stop the run)."""
        self.held: set[str] = set()
        """Queued runs autostart leaves alone: those of an "extract all" the user stopped
        (tui.widgets.backlog_runner); starting one on purpose lets it go."""
        self.run_logs: dict[str, list[RunEvent]] = {}
        """The events of the runs this app drove (the latest runs, bounded): a screen opened
        while a run is under way replays them to show what was done before it opened."""
        self.drafts = Drafts(settings.data_dir / DRAFTS_FILE)
        """What the user typed and did not send yet (feedback, edits, tutor answers)."""
        self.settles_heap: bool | None = None
        """Whether the long-lived heap is frozen out of full collections (tui.heap); None: only
        in a process that runs the app on a terminal (tests run many apps, headless)."""
        self.theme = settings.tui.theme
        for entry in registry:
            # kept out of the footers (they would overflow it); home lists them in a line of
            # its own, and help and the command palette list them everywhere
            action, binding_id = f"open_screen('{entry.name}')", f"app.screen.{entry.name}"
            binding = Binding(entry.key, action, entry.title, id=binding_id, show=False)
            self._bindings.key_to_bindings.setdefault(entry.key, []).append(binding)
        self.set_keymap(settings.tui.keymap)

    def watch_theme(self, theme: str) -> None:
        """A theme chosen in the palette is kept in the user's settings file."""
        if theme != self.settings.tui.theme:
            from tui.choices import save_choice

            save_choice(self, {"tui": {"theme": theme}}, f"theme {theme}")

    # -- start-up and shut-down -----------------------------------------------------------

    def on_mount(self) -> None:
        from tui.screens.home import HomeScreen

        self.push_screen(HomeScreen())
        if self.first_run and self.settings.vault.path is None:  # choose the vault, or the demo
            from tui.screens.first_run import FirstRunScreen

            self.push_screen(FirstRunScreen())
        self.open_services()

    @work(exclusive=True, group="services-reopen", exit_on_error=False)
    async def reopen_services(self) -> None:
        """Open the services again on the current settings (a vault chosen at first run, the
        demo): the watcher and the old services are closed first."""
        old, self.services = self.services, None
        if self.watcher is not None:
            await asyncio.to_thread(self.watcher.stop)
            self.watcher = None
        if old is not None:
            await old.close()
        self._injected = None
        self.model_gate = None
        self.open_services()

    @work(exclusive=True, group="services", exit_on_error=False)
    async def open_services(self) -> None:
        """Open the store, client, vault and runtime off the UI, then announce them."""
        services = self._injected
        if services is None:
            from core.flows.registry import open_app

            services = await asyncio.to_thread(open_app, self.settings, backend=self._backend)
        await services.__aenter__()
        services.recover_interrupted()
        from core.repair import finish_approved, repair  # what a crash left half-done

        await asyncio.to_thread(repair, services)
        await finish_approved(services)  # approved before a crash: commit what was approved
        self.services = services
        self.post_message(ServicesReady())

    def on_services_ready(self, _message: ServicesReady) -> None:
        if self.settles_heap is None:
            self.settles_heap = not self.is_headless
        if self.settles_heap:
            settle_heap()
        self._broadcast(ServicesReady)
        if self.watch_vault and self.services is not None and self.services.vault is not None:
            self.start_watcher()
        self.check_model()

    # -- quitting --------------------------------------------------------------------------

    def work_in_progress(self) -> list[tuple[str | None, str]]:
        """(run id or None, what) of the work quitting would interrupt: runs this app drives,
        and what screens report (a tutor turn)."""
        work: list[tuple[str | None, str]] = []
        for run_id in sorted(self.driving):
            work.append((run_id, self.describe_run(run_id)))
        for screen in self.screen_stack:
            report = getattr(screen, "work_in_progress", None)
            if callable(report):
                work.extend(report())
        return work

    def describe_run(self, run_id: str) -> str:
        """`extraction of Deep Work.md (run a1b2c3d4), at extract_batch`."""
        step = next(
            (e.node for e in reversed(self.run_log(run_id)) if isinstance(e, NodeStarted)), ""
        )
        try:
            run = self.services.runtime.runs.get(run_id) if self.services else None
        except KeyError:
            run = None
        if run is None:
            what = f"a run ({run_id[:8]})"
        elif run.target:
            what = f"{run.flow} of {run.target} (run {run_id[:8]})"
        else:
            what = f"a {run.flow} run ({run_id[:8]})"
        return what + (f", at {step}" if step else "")

    async def action_quit(self) -> None:
        """Quit; with work in progress, ask first (the work resumes when noema opens again)."""
        from tui.widgets.confirm import ConfirmModal

        if isinstance(self.screen, ConfirmModal):
            return
        work = self.work_in_progress()
        if not work:
            self.exit()
            return
        body = "\n".join(f"• {what}" for _run, what in work)
        body += (
            "\n\nQuit anyway? Each run stops now and goes on from its last finished step "
            "the next time noema opens (home shows it as interrupted)."
        )

        def answer(quit_now: bool | None) -> None:
            if quit_now:
                self.quit_interrupting([run for run, _what in work if run])

        self.push_screen(ConfirmModal("Work is in progress", body, "Quit", "Stay"), answer)

    def quit_interrupting(self, run_ids: list[str]) -> None:
        """Record the runs as interrupted (resumable) before their workers are cancelled."""
        if self.services is not None:
            for run_id in run_ids:
                self.services.runtime.runs.mark_interrupted(run_id)
        self.exit()

    async def on_unmount(self) -> None:
        await asyncio.to_thread(self.drafts.flush)
        if self.watcher is not None:
            await asyncio.to_thread(self.watcher.stop)
        if self.services is not None:
            await self.services.close()

    # -- the vault watcher ----------------------------------------------------------------

    @work(exclusive=True, group="watcher", thread=True, exit_on_error=False)
    def start_watcher(self) -> None:
        """Sync, catch up and watch; the watcher thread only posts messages afterwards."""
        from core.ingest import start_watching

        services = self.services
        assert services is not None and services.vault is not None
        self.post_message(WatcherStatus(False, "starting"))
        try:
            watcher, ingest, writer = start_watching(
                self.settings, services.store, index=services.vault.index
            )
        except Exception as exc:
            self.post_message(WatcherStatus(False, f"{WATCHER_FAILED}: {exc}"))
            raise
        services.vault.writer = writer  # noema's own writes are not reported back as events

        def changed(events: list[VaultEvent], queued: list[RunRecord]) -> None:
            self.post_message(VaultChanged(events, queued))

        ingest.listeners.append(changed)
        self.watcher, self.ingest = watcher, ingest
        mode = "polling" if watcher.polling else "native events"
        self.post_message(WatcherStatus(True, f"watching ({mode})"))
        self.post_message(VaultChanged([], list(ingest.queued)))

    def on_vault_changed(self, message: VaultChanged) -> None:
        self.recent_events = (list(message.events) + self.recent_events)[:50]
        for run in message.queued:
            self.notify(f"queued {run.flow} of {run.target}", title="Vault watcher")
        self._broadcast(lambda: VaultChanged(message.events, message.queued))
        if message.queued:
            self.start_next_queued()

    def on_watcher_status(self, message: WatcherStatus) -> None:
        self._broadcast(lambda: WatcherStatus(message.running, message.text))

    # -- runs ------------------------------------------------------------------------------

    def start_next_queued(self) -> None:
        """Start the oldest queued runs of registered flows, up to `tui.max_parallel_runs` at
        once, when autostart is on and the model is there (a run against a dead server or a
        missing model would only fail: it waits, see tui.model_watch). Sessions (a tutor turn
        that was interrupted) are not: their screen goes on with the learner there when the
        session is opened."""
        if self.services is None or not self.settings.tui.autostart_queued_runs:
            return
        if not self.model_ok:
            return
        room = self.settings.tui.max_parallel_runs - len(self.driving)
        flows = self.services.runtime.flows
        queued = [
            r
            for r in reversed(self.services.runtime.list_runs(status="queued"))
            if r.flow in flows
            and not self.registry.is_session(r.flow)
            and r.id not in self.driving
            and r.id not in self.held
        ]
        for run in queued[: max(0, room)]:
            self.drive_run(run.id)

    def drive_run(self, run_id: str, resume: bool = False, value: object = None) -> bool:
        """Execute (or resume) a run to its next pause in a worker; False if it is already
        being driven. Events arrive as `RunUpdate` messages on every screen."""
        if run_id in self.driving:
            return False
        self.driving.add(run_id)
        self.held.discard(run_id)
        self.run_workers[run_id] = self.run_worker(
            self._drive(run_id, resume, value),
            name=f"run {run_id[:8]}",
            group="runs",
            exit_on_error=False,
        )
        return True

    def stop_run(self, run_id: str) -> bool:
        """Stop a run this app is driving: its model call is aborted and it is recorded
        cancelled, to be continued later from its last checkpoint; False if none is driven."""
        worker = self.run_workers.get(run_id)
        if worker is None or self.services is None:
            return False
        self.services.runtime.stop(run_id)
        worker.cancel()
        return True

    async def _drive(self, run_id: str, resume: bool, value: object) -> None:
        assert self.services is not None
        runtime = self.services.runtime
        try:
            self.post_message(RunsChanged())
            events = runtime.resume(run_id, value) if resume else runtime.stream(run_id)
            async for event in events:
                self.post_message(RunUpdate(event))
        finally:
            self.driving.discard(run_id)
            self.run_workers.pop(run_id, None)
            self.post_message(RunsChanged())

    def resume_run(self, run_id: str, value: object) -> bool:
        """Answer a run's review (what review screens call); events arrive as RunUpdate."""
        return self.drive_run(run_id, True, value)

    def run_log(self, run_id: str) -> list[RunEvent]:
        """The events of a run this app drove so far (empty when it drove none)."""
        return list(self.run_logs.get(run_id, ()))

    def _record(self, event: RunEvent) -> None:
        log = self.run_logs.pop(event.run_id, [])  # re-inserted: the newest run goes last
        log.append(event)
        self.run_logs[event.run_id] = log[-RUN_LOG_EVENTS:]
        while len(self.run_logs) > RUN_LOG_RUNS:
            del self.run_logs[next(iter(self.run_logs))]

    def on_run_update(self, message: RunUpdate) -> None:
        event = message.event
        self._record(event)
        short = event.run_id[:8]
        if isinstance(event, Interrupted):
            self.notify(f"run {short} awaits your review", title="Review")
        elif isinstance(event, Failed):
            self.notify(f"run {short} failed: {event.error}", severity="error", timeout=8)
            self.check_model()  # a model gone meanwhile shows on home with its fix
        elif isinstance(event, Done):
            self.notify(f"run {short} is done")
        self._broadcast(lambda: RunUpdate(event))

    def on_runs_changed(self, _message: RunsChanged) -> None:
        self._broadcast(RunsChanged)
        self.start_next_queued()

    def open_run(self, run: RunRecord) -> None:
        """Open a session, the review screen of a run's flow (or the screen following a running
        run), or say why there is none."""
        factory = self.registry.run_factory(run)
        if factory is not None:
            self.push_screen(resolve(factory)(self, run))
            return
        detail = f": {run.error}" if run.error else ""
        if not self.registry.has_review(run.flow):
            detail += f" (no review screen for {run.flow} runs yet)"
        self.notify(f"{run.flow} run {run.id[:8]} is {run.status}{detail}", title="Run")

    # -- navigation ------------------------------------------------------------------------

    def action_open_screen(self, name: str) -> NoemaScreen:
        """Open a registered screen (`self.registry`); the one on top when it already is."""
        if isinstance(self.screen, NoemaScreen) and self.screen.noema_name == name:
            return self.screen
        screen = resolve(self.registry[name].open)(self)
        if isinstance(screen, NoemaScreen):
            screen.noema_name = name
        self.push_screen(screen)
        return screen

    def open_and(self, spec: tuple[str, str, *tuple[object, ...]]) -> None:
        """Open a screen and run one of its actions there: `(screen, action, *arguments)`
        (what the command palette's action entries do)."""
        name, action, *arguments = spec
        if self.services is None:
            self.notify("still opening the vault and the model; try again in a moment")
            return
        screen = self.action_open_screen(name)
        self.call_after_refresh(getattr(screen, f"action_{action}"), *arguments)

    def open_session(self, session_id: str) -> None:
        """Open a tutoring session (the command palette's "Resume session")."""
        if self.services is not None:
            self.open_run(self.services.runtime.runs.get(session_id))

    @work(exclusive=True, group="index", exit_on_error=False)
    async def index_vault(self) -> None:
        """Sync the vault into the index (and embeddings, when configured), with progress."""
        services = self.services
        if services is None or services.vault is None:
            self.notify("no vault to index", severity="warning")
            return

        shown = [0.0]

        def progress(done: int, total: int, path: str) -> None:  # from the indexing thread
            now = time.monotonic()
            if done == total or now - shown[0] >= PROGRESS_EVERY_S:
                shown[0] = now
                self.post_message(IndexProgress(done, total, path))

        self.post_message(IndexProgress(0, 0, "starting"))
        try:
            result = await services.vault.index.sync_async(progress)
        finally:
            self.post_message(IndexProgress(-1, 0, ""))
        self.notify(f"indexed: {result.summary()}", title="Index")

    def on_index_progress(self, message: IndexProgress) -> None:
        self._broadcast(lambda: IndexProgress(message.done, message.total, message.path))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`h Home` leaves the footer while home is on top (at 100 columns it pushed `q Quit`
        out of it)."""
        return not (action == "home" and len(self.screen_stack) <= 2)

    def action_home(self) -> None:
        """Back to the home screen (the bottom of the stack)."""
        while len(self.screen_stack) > 2:
            self.pop_screen()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    # -- errors and fan-out ---------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.report_worker(event)

    def report_worker(self, event: Worker.StateChanged) -> None:
        """Every worker failure becomes a notification, never a crash (screens forward
        their workers' events here: see tui.screens.base)."""
        if event.state == WorkerState.ERROR:
            from core.problems import user_message

            error = event.worker.error
            self.notify(
                user_message(error) if error is not None else "failed",
                title=f"{event.worker.group or event.worker.name} failed",
                severity="error",
                timeout=10,
            )
            if event.worker.group == "runs":
                self.post_message(RunsChanged())

    def _broadcast(self, make: Callable[[], Message]) -> None:
        """Post a fresh message to every screen on the stack (home keeps its tables current)."""
        for screen in self.screen_stack:
            if screen.is_attached:
                screen.post_message(make())
