"""Progress widgets the workflow screens reuse: a step list and a run progress panel.

`RunProgress.apply(event)` takes the runtime's typed events (`core.events`): node started /
finished become steps, `Progress` events with `done`/`total` move the bar and their
`message` shows beside it. Without such counts the bar moves with the steps done, so it
never sits at "--%" while the run advances.
"""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar, Static

from core.events import Done, Failed, Interrupted, NodeFinished, NodeStarted, Progress, RunEvent
from tui.widgets.options import WidgetOptions

STEP_MARKS = {
    "pending": ("○", "dim"),
    "running": ("◌", "yellow"),
    "done": ("✓", "green"),
    "failed": ("✗", "red"),
    "waiting": ("⏸", "magenta"),
    "skipped": ("–", "dim"),
}


class Stepper(Static):
    """An ordered list of named steps, each pending, running, done, waiting or failed; one
    line with arrows between the steps when `inline`."""

    def __init__(
        self, steps: list[str] | None = None, inline: bool = False, **kwargs: Unpack[WidgetOptions]
    ) -> None:
        super().__init__(**kwargs)
        self.steps: dict[str, str] = dict.fromkeys(steps or [], "pending")
        self.fixed = bool(steps)
        self.inline = inline

    def set_state(self, step: str, state: str) -> None:
        """A step's state; a step not in the list given at creation is not shown (a flow's
        side nodes would make the line grow and the bar jump)."""
        if self.fixed and step not in self.steps:
            return
        self.steps[step] = state
        self.refresh_steps()

    def refresh_steps(self) -> None:
        text = Text()
        for n, (name, state) in enumerate(self.steps.items()):
            symbol, style = STEP_MARKS.get(state, STEP_MARKS["pending"])
            if self.inline and n:
                text.append(" → ", style="dim")
            text.append(f"{symbol} ", style=style).append(name, style=style if self.inline else "")
            if not self.inline:
                text.append("\n")
        self.update(text)

    def on_mount(self) -> None:
        self.refresh_steps()


class RunProgress(Vertical):
    """A stepper on one line, then a progress bar and the latest progress message of one run."""

    DEFAULT_CSS = """
    RunProgress { height: auto; }
    RunProgress Horizontal { height: 1; }
    RunProgress ProgressBar { width: 42; margin: 0 2 0 0; }
    RunProgress Label { width: 1fr; }
    """

    def __init__(self, steps: list[str] | None = None, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self._steps = steps or []
        self.counted = False
        """Whether a `Progress` event gave the bar its own counts (then steps do not move it)."""

    def compose(self) -> ComposeResult:
        yield Stepper(self._steps, inline=True)
        with Horizontal():
            yield ProgressBar(total=None, show_eta=False)
            yield Label("", classes="progress-message")

    def reset(self) -> None:
        """A new run: every step pending, the bar empty."""
        stepper = self.query_one(Stepper)
        for name in stepper.steps:
            stepper.steps[name] = "pending"
        stepper.refresh_steps()
        self.counted = False
        self.query_one(ProgressBar).update(total=None, progress=0)
        self.query_one(Label).update("")

    def apply(self, event: RunEvent) -> None:
        """Show one run event."""
        stepper = self.query_one(Stepper)
        if isinstance(event, NodeStarted):
            stepper.set_state(event.node, "running")
            self._by_steps()
        elif isinstance(event, NodeFinished):
            stepper.set_state(event.node, "done")
            self._by_steps()
        elif isinstance(event, Progress):
            self._progress(event.data)
        elif isinstance(event, Interrupted):
            for name, state in stepper.steps.items():
                if state == "running":
                    stepper.set_state(name, "waiting")
            if not self.counted:  # the run went as far as it can without you
                bar = self.query_one(ProgressBar)
                bar.update(total=bar.total or 1, progress=bar.total or 1)
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

    def _by_steps(self) -> None:
        """Without counts of its own, the bar shows the share of the known steps done."""
        steps = self.query_one(Stepper).steps
        if self.counted or not steps:
            return
        done = sum(1 for state in steps.values() if state == "done")
        self.query_one(ProgressBar).update(total=len(steps), progress=done)

    def _progress(self, data: dict) -> None:
        bar = self.query_one(ProgressBar)
        total, done = data.get("total"), data.get("done")
        if isinstance(total, int | float) and total > 0:
            self.counted = True
            bar.update(total=total, progress=float(done or 0))
        if data.get("message"):
            self.query_one(Label).update(str(data["message"]))
