"""Progress widgets the workflow screens reuse: a step list and a run progress panel.

`RunProgress.apply(event)` takes the runtime's typed events (`core.events`): node started /
finished become steps, `Progress` events with `done`/`total` move the bar and their
`message` shows under it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, ProgressBar, Static

from core.events import Done, Failed, Interrupted, NodeFinished, NodeStarted, Progress, RunEvent

STEP_MARKS = {"pending": ("○", "dim"), "running": ("◌", "yellow"), "done": ("✓", "green"),
              "failed": ("✗", "red"), "waiting": ("⏸", "magenta")}  # fmt: skip


class Stepper(Static):
    """An ordered list of named steps, each pending, running, done, waiting or failed."""

    def __init__(self, steps: list[str] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.steps: dict[str, str] = dict.fromkeys(steps or [], "pending")

    def set_state(self, step: str, state: str) -> None:
        self.steps[step] = state
        self.refresh_steps()

    def refresh_steps(self) -> None:
        text = Text()
        for name, state in self.steps.items():
            symbol, style = STEP_MARKS.get(state, STEP_MARKS["pending"])
            text.append(f"{symbol} ", style=style).append(name + "\n")
        self.update(text)

    def on_mount(self) -> None:
        self.refresh_steps()


class RunProgress(Vertical):
    """A stepper, a progress bar and the latest progress message of one run."""

    DEFAULT_CSS = """
    RunProgress { height: auto; }
    RunProgress ProgressBar { margin: 1 0 0 0; }
    """

    def __init__(self, steps: list[str] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._steps = steps or []

    def compose(self) -> ComposeResult:
        yield Stepper(self._steps)
        yield ProgressBar(total=None, show_eta=False)
        yield Label("", classes="progress-message")

    def apply(self, event: RunEvent) -> None:
        """Show one run event."""
        stepper = self.query_one(Stepper)
        if isinstance(event, NodeStarted):
            stepper.set_state(event.node, "running")
        elif isinstance(event, NodeFinished):
            stepper.set_state(event.node, "done")
        elif isinstance(event, Progress):
            self._progress(event.data)
        elif isinstance(event, Interrupted):
            self.query_one(Label).update("waiting for your review")
        elif isinstance(event, Failed):
            running = [name for name, state in stepper.steps.items() if state == "running"]
            for name in running:
                stepper.set_state(name, "failed")
            self.query_one(Label).update(Text(event.error, style="red"))
        elif isinstance(event, Done):
            bar = self.query_one(ProgressBar)
            bar.update(total=bar.total or 1, progress=bar.total or 1)
            self.query_one(Label).update("done")

    def _progress(self, data: dict) -> None:
        bar = self.query_one(ProgressBar)
        total, done = data.get("total"), data.get("done")
        if isinstance(total, int | float) and total > 0:
            bar.update(total=total, progress=float(done or 0))
        if data.get("message"):
            self.query_one(Label).update(str(data["message"]))
