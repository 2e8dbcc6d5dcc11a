"""The six-step lesson stepper: Planner, Expander, Assembler, Smoother, Self-Review, Judge.

Nodes map to steps (`core.flows.lesson.graph.NODE_STEP`); a node starting marks its step
running and every earlier step done, so regenerations visibly move the stepper back.
"""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual.widgets import Static

from core.events import Done, Failed, Interrupted, NodeStarted, Progress, RunEvent
from core.flows.lesson.graph import NODE_STEP, STEPS
from tui.widgets.options import WidgetOptions

MARKS = {
    "pending": ("○", "dim"),
    "running": ("◉", "bold yellow"),
    "done": ("✓", "green"),
    "failed": ("✗", "red"),
    "waiting": ("⏸", "magenta"),
}


class LessonStepper(Static):
    """One line: the six steps with their states, and the latest phase message below."""

    DEFAULT_CSS = "LessonStepper { height: auto; padding: 0 1; }"

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.states = ["pending"] * len(STEPS)
        self.message = ""
        self.failed = False
        self.step = 0
        self.step_tokens = 0
        """Tokens of the judges since the Judge step started (it runs again: from 0)."""

    def reset(self) -> None:
        self.states = ["pending"] * len(STEPS)
        self.message = ""
        self.step, self.step_tokens = 0, 0
        self.render_steps()

    def at(self, step: int, state: str) -> None:
        """Step `step` is in `state`; earlier steps are done, later ones pending."""
        self.states = ["done"] * step + [state] + ["pending"] * (len(STEPS) - step - 1)
        self.render_steps()

    def apply(self, event: RunEvent) -> None:
        if isinstance(event, NodeStarted) and event.node in NODE_STEP:
            if self.failed:  # started again after a failure: the old error is history
                self.message, self.failed = "", False
            self.started(event.node)
        elif isinstance(event, Progress) and event.data.get("phase"):
            self.phase_done(event.data)
        elif isinstance(event, Interrupted):
            self.at(len(STEPS) - 1, "waiting")
        elif isinstance(event, Done):
            self.states = ["done"] * len(STEPS)
            self.render_steps()
        elif isinstance(event, Failed):
            self.states = ["failed" if s == "running" else s for s in self.states]
            self.message = event.error.splitlines()[-1] if event.error else "failed"
            self.failed = True
            self.render_steps()

    def started(self, node: str) -> None:
        """A node of a step starts; a judge says so at once (the line below it counts its
        call's time and tokens), instead of the last phase's figures standing for it."""
        step = NODE_STEP[node]
        if step != self.step or self.states[step] != "running":
            self.step, self.step_tokens = step, 0
        if node.startswith("judge_"):
            self.message = f"{node}: the judge is reading the lesson…"
        self.at(step, "running")

    def phase_done(self, data: dict) -> None:
        """A phase's figures; the verdict (no model call of its own) gives the tokens of the
        judges it weighed, not a bare 0. (Tokens are the phase's own: the expander's phase is
        reported from the assembler node, so a step's sum would mix steps.)"""
        tokens = int(data.get("tokens") or 0)
        if data["phase"] == "judge":
            self.step_tokens += tokens
        figure = f"{tokens:,} tokens"
        if data["phase"] == "verdict" and not tokens:
            figure = f"judges {self.step_tokens:,} tokens"
        self.message = f"{data['phase']}: {data.get('status', '')} · {figure}"
        self.render_steps()

    def render_steps(self) -> None:
        text = Text()
        for n, (name, state) in enumerate(zip(STEPS, self.states, strict=True)):
            mark, style = MARKS[state]
            if n:
                text.append(" → ", style="dim")
            text.append(f"{mark} [{n + 1}] {name}", style=style)
        text.append(f"\n{self.message}", style="dim")
        self.update(text)

    def on_mount(self) -> None:
        self.render_steps()
