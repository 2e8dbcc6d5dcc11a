"""Modals of the tutor screen: resume a session, read its agent logs, edit the learner."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from core.flows.tutor import logs
from core.flows.tutor.agents import AGENTS

MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{ width: 90%; height: 85%; border: thick $accent; background: $surface;
    padding: 0 1; }}
{name} Horizontal {{ height: auto; }}
"""


class SessionsModal(ModalScreen[str | None]):
    """The sessions, most recent first; Enter resumes one."""

    DEFAULT_CSS = (
        MODAL_CSS.format(name="SessionsModal") + "SessionsModal DataTable { height: 1fr; }"
    )
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="tutor.sessions.close")]

    def __init__(self, sessions: list[Any]) -> None:
        super().__init__()
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Sessions (Enter: resume · Esc: close)", classes="section")
            yield DataTable(cursor_type="row", id="sessions")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Session", "Topic", "Status", "Mastery", "Steps", "Turns", "Updated")
        for s in self.sessions:
            table.add_row(
                s.id[:8],
                s.title,
                s.state or s.status,
                f"{s.mastery:.0%}",
                f"{s.steps_completed}/{s.steps_total}",
                str(s.turns),
                s.updated_at[:16],
                key=s.id,
            )
        table.focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)


class LogsModal(ModalScreen[None]):
    """A session's readable agent log, filtered by agent."""

    DEFAULT_CSS = MODAL_CSS.format(name="LogsModal") + "LogsModal VerticalScroll { height: 1fr; }"
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="tutor.logs.close")]

    def __init__(self, data_dir: Any, session_id: str, store: Any = None) -> None:
        super().__init__()
        self.data_dir = data_dir
        self.session_id = session_id
        self.store = store

    def compose(self) -> ComposeResult:
        with Vertical():
            with Horizontal():
                yield Label(f"Agent logs of {self.session_id[:8]}  (Esc: close)  agent:")
                yield Select([(a, a) for a in AGENTS], prompt="all agents", id="agent")
            with VerticalScroll():
                yield Static("", id="log-summary")
                yield Static("", id="log")

    def on_mount(self) -> None:
        if self.store is not None:
            stats = logs.summary(self.store, self.data_dir, self.session_id)
            self.query_one("#log-summary", Static).update(logs.summary_text(stats) + "\n")
        self.show(None)

    @on(Select.Changed, "#agent")
    def _agent(self, event: Select.Changed) -> None:
        self.show(event.value if isinstance(event.value, str) else None)

    def show(self, agent: str | None) -> None:
        text = logs.read_text(self.data_dir, self.session_id, agent)
        self.query_one("#log", Static).update(text or "no log entries")


class LearnerModal(ModalScreen[dict[str, Any] | None]):
    """Edit the learner profile; Save returns the new profile."""

    DEFAULT_CSS = MODAL_CSS.format(name="LearnerModal") + "LearnerModal Input { width: 1fr; }"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="tutor.learner.cancel")]
    FIELDS = ("name", "grade", "preferred_style", "language", "interests")

    def __init__(self, profile: dict[str, Any]) -> None:
        super().__init__()
        self.profile = profile

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Learner profile (saved to your settings file)", classes="section")
            for field in self.FIELDS:
                value = self.profile.get(field, "")
                if isinstance(value, list):
                    value = ", ".join(value)
                with Horizontal():
                    yield Label(f"{field.replace('_', ' ')}: ")
                    yield Input(str(value), id=f"learner-{field}")
            with Horizontal():
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        values: dict[str, Any] = {
            f: self.query_one(f"#learner-{f}", Input).value.strip() for f in self.FIELDS
        }
        values["interests"] = [i.strip() for i in values["interests"].split(",") if i.strip()]
        self.dismiss(values)


class ExportModal(ModalScreen[str | None]):
    """Where to export the session (a Markdown file); enter writes it, esc closes. A path that
    cannot be written says why and stays open for another."""

    DEFAULT_CSS = MODAL_CSS.format(name="ExportModal") + (
        "ExportModal > Vertical { height: auto; } ExportModal #export-error { color: $error; }"
    )
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="tutor.export.close")]

    def __init__(self, suggested: str, write: Any) -> None:
        super().__init__()
        self.suggested = suggested
        self.write = write
        """`write(path) -> str`: the path written; raises ValueError with the reason."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                "Export the conversation to a Markdown file (enter: write · esc: close)",
                classes="section",
            )
            yield Input(self.suggested, id="export-path")
            yield Label("", id="export-error")

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        if not path:
            self.query_one("#export-error", Label).update("name a file")
            return
        try:
            written = self.write(path)
        except ValueError as exc:
            self.query_one("#export-error", Label).update(str(exc))
            return
        self.dismiss(written)
