"""The home screen: the hub. Vault, model and watcher status, and the runs table."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Label

from core.flows.tutor.progress import Tracked, due_with_history
from core.overview import NoteCounts, note_counts
from core.store import Store
from core.wording import plural
from tui.frames import in_view
from tui.keys import hints, key_for
from tui.messages import (
    IndexProgress,
    ModelStatus,
    RunsChanged,
    RunUpdate,
    ServicesReady,
    VaultChanged,
    WatcherStatus,
)
from tui.screens.base import NoemaScreen
from tui.text import clip_path
from tui.widgets import InfoPanel, RunsTable, mark
from tui.widgets.backlog_runner import BacklogLine
from tui.widgets.index_bar import IndexBar
from tui.widgets.mastery_chart import PracticeList
from tui.widgets.model_activity import TICK_S, activity_text, queue_text

ACTIVE_FIRST = {
    "running": 0,
    "awaiting_review": 1,
    "queued": 2,
    "failed": 3,
    "done": 4,
    "cancelled": 5,
}
RECENT_EVENTS = 8
DUE_SHOWN = 3


DueWithTrend = list[tuple[Tracked, list[float]]]
"""Concepts and subtopics due for practice, each with its mastery values oldest first."""


def vault_overview(store: Store) -> tuple[NoteCounts, DueWithTrend]:
    """The index's counts, and what the tutor says is due (weakest, stalest first)."""
    return note_counts(store), due_with_history(store, DUE_SHOWN)


class HomeScreen(NoemaScreen):
    """Where everything starts; other screens are one key away (see the footer or `?`)."""

    BINDINGS = [
        Binding("o", "open_run", "Open", id="home.open_run", tooltip="Open run"),
        Binding("s", "start_run", "Start", id="home.start_run", tooltip="Start run"),
        Binding("c", "cancel_run", "Cancel", id="home.cancel_run", tooltip="Cancel run"),
        Binding("i", "index", "Index", id="home.index", tooltip="Index vault"),
        Binding("r", "refresh", "Refresh", id="home.refresh"),
        Binding("a", "extract_all", "Extract all", id="home.extract_all"),
        Binding(
            "p", "progress", "Progress", id="home.progress", show=False, tooltip="Mastery over time"
        ),
    ]
    HELP_KEYS = [
        ("enter", "open the selected run: its review, its live progress, or a session"),
        ("↑ ↓", "choose a run"),
    ]

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="panels"):
            yield InfoPanel("Vault", id="vault-panel")
            yield InfoPanel("Model", id="model-panel")
            yield InfoPanel("Watcher", id="watcher-panel")
        yield IndexBar(id="index-bar")
        yield PracticeList(id="home-practice")
        yield Label("", id="screens-line")
        yield Label("Runs", id="runs-title")
        yield RunsTable(id="runs")
        yield BacklogLine(id="backlog-line")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.vault_label
        self.query_one(RunsTable).focus()
        self.show_screens()
        keys = hints(
            self,
            ("home.open_run", "open"),
            ("home.start_run", "start/retry"),
            ("home.cancel_run", "cancel"),
            sep=" · ",
        )
        self.query_one("#runs-title", Label).update(f"Runs  (Enter or {keys})")
        self.show_vault(None)
        self.show_model("busy", "opening…")
        self.show_watcher("off", "waiting for the vault" if self.app.watch_vault else "off")
        self.set_interval(TICK_S, self.tick_activity)

    @property
    def vault_label(self) -> str:
        app = self.app
        if app.vault_label:
            return app.vault_label
        path = app.settings.vault.path
        return str(path) if path else "no vault configured"

    # -- panels ---------------------------------------------------------------------------

    def show_screens(self) -> None:
        """One line with every registered screen's key (after the keymap), instead of the
        footer, where they would not fit next to the screen's own keys."""
        keys = {
            active.binding.id: self.app.get_key_display(active.binding)
            for active in self.active_bindings.values()
            if active.binding.id
        }
        line = Text().append("Screens  ", style="bold")
        for entry in self.app.registry:
            key = keys.get(f"app.screen.{entry.name}")
            if key:
                line.append(f" {key} ", style="reverse").append(f" {entry.title}  ")
        line.append(" ^p ", style="reverse").append(" palette  ")
        line.append(" ? ", style="reverse").append(" all keys")
        self.query_one("#screens-line", Label).update(line)

    def show_vault(self, counts: NoteCounts | None, due: DueWithTrend | None = None) -> None:
        rows: list[tuple[str, Any]] = [("Vault", self.vault_label)]
        if self.app.settings.vault.path is None:
            rows.append(("", "run `noema demo` or set vault.path"))
        elif counts is None:
            rows.append(("Notes", "…"))
        else:
            kinds = " · ".join(f"{k} {n}" for k, n in sorted(counts.kinds.items()))
            rows += [
                ("Notes", f"{counts.notes}  ({kinds or 'none'})"),
                ("Concepts", str(counts.concepts)),
                ("Unprocessed", plural(counts.unprocessed, "source")),
            ]
            if counts.problems:  # kept out of the workflows until fixed
                rows.append(("To fix", f"{counts.problems} notes (noema doctor)"))
        self.query_one("#vault-panel", InfoPanel).show_rows(rows)
        if counts is not None:  # what the tutor says is due (weakest, stalest first)
            hint = f"{key_for(self, 'home.progress')}: progress"
            self.query_one(PracticeList).show(due or [], hint)

    def show_model(self, state: str, detail: str, message: ModelStatus | None = None) -> None:
        self._model_status = (state, detail, message)
        self.render_model()

    def render_model(self) -> None:
        """The model, its status (what is missing with its one-line fix, the runs waiting),
        the call it is answering and what waits behind it."""
        from tui.probe import describe

        services = self.app.services
        if services is not None:
            model = describe(services.llm.config("default"))
        else:
            from core.models import role_config

            model = describe(role_config(self.app.settings, "default"))
        state, detail, message = self._model_status
        gate = message.gate if message is not None else None
        self._bundled_shown = self.bundled_status() if gate is not None and gate.ready else None
        detail = self._bundled_shown or detail  # the bundled server starts and stops meanwhile
        rows: list[tuple[str, Any]] = [("Model", model), ("Status", mark(state, detail))]
        if gate is not None and gate.problem is not None:
            rows[1] = ("Status", mark(state, gate.problem.detail))
            rows.append(("Fix", self.fix_line(gate)))
            waiting = self.query_one(RunsTable).count("queued")
            check_s = message.next_check_s if message is not None else None
            when = f"next check in {check_s:g} s" if check_s else ""
            runs = (
                f"{waiting} queued run{'s wait' if waiting != 1 else ' waits'}" if waiting else ""
            )
            rows.append(("Waiting", " · ".join(part for part in (runs, when) if part)))
        calls = services.activity.calls() if services is not None else []
        if calls or not (gate is not None and gate.problem is not None):
            # with the model down and no call under way, the Waiting row says it all (at 100
            # columns the two rows pushed the panel past its height)
            queued = self.query_one(RunsTable).count("queued")
            rows += [
                ("Now", activity_text(calls, None, time.monotonic())),
                ("Queue", queue_text(calls, queued)),
            ]
        self._activity_live = bool(calls)
        self.query_one("#model-panel", InfoPanel).show_rows(rows)

    def tick_activity(self) -> None:
        """While the model works (and once after), elapsed time and tokens move."""
        services = self.app.services
        live = services is not None and bool(services.activity.calls())
        bundled = getattr(self, "_bundled_shown", None)
        moved = bundled is not None and self.bundled_status() != bundled
        if in_view(self) and (live or moved or getattr(self, "_activity_live", False)):
            self.render_model()

    def bundled_status(self) -> str | None:
        """The bundled model's server as it is now (None for any other provider)."""
        from core.model_gate import bundled_model_line
        from local_llm.catalog import server_kind

        services = self.app.services
        if services is None or server_kind(services.llm.config("default")) != "local":
            return None
        return bundled_model_line(services.llm)

    def fix_line(self, gate: Any) -> str:
        """The failed check's fix, pointing at the model screen where it can be done there."""
        problem = gate.problem
        key = self.screen_key("model") or "m"
        if problem.name != "model":
            return problem.fix
        if self.app.services is not None and self.app.services.llm.config().is_ollama:
            return (
                f"run `ollama pull {gate.model}` (or p on the model screen), "
                f"or choose an installed model with {key}"
            )
        return f"choose a model the server has with {key}"

    def screen_key(self, name: str) -> str | None:
        """The key that opens a registered screen (after the keymap)."""
        for active in self.active_bindings.values():
            if active.binding.id == f"app.screen.{name}":
                return self.app.get_key_display(active.binding)
        return None

    def show_watcher(self, state: str, text: str) -> None:
        self._watcher = (state, text)
        events = Text()
        for event in self.app.recent_events[:RECENT_EVENTS]:
            events.append(f"{event.kind:<9}", style="bold").append(f"{event.path}\n")
        rows = [
            ("Status", mark(state, text)),
            ("Recent", events or Text("no events yet", style="dim")),
        ]
        self.query_one("#watcher-panel", InfoPanel).show_rows(rows)

    # -- messages from the app ------------------------------------------------------------

    def on_services_ready(self, _message: ServicesReady) -> None:
        self.sub_title = self.vault_label  # a vault chosen at first run shows
        self.refresh_all()

    def on_vault_changed(self, _message: VaultChanged) -> None:
        self.show_watcher(*self._watcher)
        self.load_counts()
        self.load_runs()

    def on_watcher_status(self, message: WatcherStatus) -> None:
        state = "ok" if message.running else ("fail" if "failed" in message.text else "busy")
        self.show_watcher(state, message.text)

    def on_runs_changed(self, _message: RunsChanged) -> None:
        self.load_runs()

    def on_screen_resume(self) -> None:
        """Back from another screen: what was done there (a tutoring session, say) shows."""
        if self.app.services is not None:
            self.refresh_all()

    def on_run_update(self, message: RunUpdate) -> None:
        if not type(message.event).__name__.startswith("Progress"):
            self.load_runs()

    # -- workers --------------------------------------------------------------------------

    def on_model_status(self, message: ModelStatus) -> None:
        state = "busy" if message.ok is None else ("ok" if message.ok else "fail")
        self.show_model(state, message.detail, message)
        table = self.query_one(RunsTable)  # queued runs show whether they wait for the model
        table.show_runs(list(table.records.values()), waiting_for=self.app.waiting_for)

    def refresh_all(self) -> None:
        self.load_counts()
        self.load_runs()

    @work(exclusive=True, group="home-counts", exit_on_error=False)
    async def load_counts(self) -> None:
        services = self.app.services
        if services is None or services.vault is None:
            return
        self.show_vault(*await asyncio.to_thread(vault_overview, services.store))

    @work(exclusive=True, group="home-runs", exit_on_error=False)
    async def load_runs(self) -> None:
        services = self.app.services
        if services is None:
            return
        runs = await asyncio.to_thread(services.runtime.list_runs)
        runs.sort(key=lambda r: ACTIVE_FIRST.get(r.status, 9))
        self.query_one(RunsTable).show_runs(runs, waiting_for=self.app.waiting_for)
        self.render_model()  # the queue counts the queued runs

    def action_index(self) -> None:
        """Sync the vault into the index (and embeddings, when configured)."""
        self.app.index_vault()

    def on_index_progress(self, message: IndexProgress) -> None:
        """A bar moves while indexing runs, and the vault panel names the file; the counts come
        back when it is over."""
        self.query_one(IndexBar).show(message.done, message.total, message.path)
        if message.done < 0:
            self.load_counts()
            return
        where = f"{message.done}/{message.total}" if message.total else "starting"
        rows = [
            ("Vault", self.vault_label),
            ("Indexing", f"{where}  {clip_path(message.path, 40)}"),
        ]
        self.query_one("#vault-panel", InfoPanel).show_rows(rows)

    # -- actions on the selected run --------------------------------------------------------

    @on(DataTable.RowSelected, "#runs")
    def _row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open_run()

    def action_open_run(self) -> None:
        run = self.query_one(RunsTable).selected_run
        if run is not None:
            self.app.open_run(run)

    def action_start_run(self) -> None:
        run = self.query_one(RunsTable).selected_run
        services = self.app.services
        if run is None or services is None:
            return
        if run.status not in ("queued", "failed", "cancelled"):
            self.notify(
                f"run {run.id[:8]} is {run.status}; only queued, failed or cancelled runs start"
            )
        elif run.flow not in services.runtime.flows:
            self.notify(
                f"the {run.flow} workflow is not installed yet; the run waits", severity="warning"
            )
        elif self.app.waiting_for is not None:
            # not started against a missing model: queued, it starts once the model is there
            services.runtime.runs.set_status(run.id, "queued", error=run.error)
            self.notify(
                f"run {run.id[:8]} waits for model {self.app.waiting_for}", severity="warning"
            )
            self.load_runs()
            self.app.check_model()
        else:
            self.app.drive_run(run.id)

    def action_extract_all(self) -> None:
        """Every unprocessed source to its review, a few at a time; again: stop (backlog_runner)."""
        self.query_one(BacklogLine).toggle()

    def action_cancel_run(self) -> None:
        run = self.query_one(RunsTable).selected_run
        services = self.app.services
        backlog = self.query_one(BacklogLine)
        if backlog.running and (run is None or backlog.drives(run.id)):
            backlog.stop()  # a run "extract all" drives: the pass stops (each run resumable)
            return
        if run is None or services is None:
            return
        if run.status in ("queued", "failed", "awaiting_review"):
            services.runtime.cancel(run.id)
            self.notify(f"cancelled run {run.id[:8]}")
            self.load_runs()
        elif run.status == "running" and self.app.stop_run(run.id):
            self.notify(f"stopped run {run.id[:8]}; s continues it from its last checkpoint")
        elif run.status == "running":
            self.notify(f"run {run.id[:8]} is not run by this window; stop it where it runs")
        else:
            self.notify(f"run {run.id[:8]} is {run.status} and cannot be cancelled")

    def action_progress(self) -> None:
        """Mastery over time: every concept and subtopic practiced, charted."""
        from tui.screens.progress import ProgressScreen

        self.app.push_screen(ProgressScreen())

    def action_refresh(self) -> None:
        self.refresh_all()
        self.app.check_model()
