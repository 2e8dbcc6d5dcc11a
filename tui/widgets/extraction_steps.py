"""Live progress of an extraction run, step by step (1.1a ... 3.3) with counts."""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual.widgets import Static

from core.events import Done, Failed, Interrupted, NodeFinished, NodeStarted, Progress, RunEvent
from core.flows.extraction.steps import NODE_STEPS, STEPS
from tui.text import clip
from tui.widgets.options import WidgetOptions
from tui.widgets.progress import STEP_MARKS

MESSAGE_WIDTH = 70

FAN_OUT = {"extract_batch", "detect_duplicate", "relation_queries", "relate"}
"""Nodes that run once per batch / candidate / concept: their finishes are counted."""

MERGED = {"detect_duplicates"}
"""Nodes that do a whole step's items at once (its progress gives the total): all done."""


STATE_STEPS: list[tuple[str, str]] = [
    ("load", "quotes"),
    ("1.1a", "merged"),
    ("1.1b", "detections"),
    ("1.1c", "query_sets"),
    ("1.1d", "pools"),
    ("1.1e", "relation_sets"),
    ("1.2", "critique_log"),
    ("2.1", "decision"),
    ("3.1", "commit"),
    ("3.2", "written"),
]
"""Step -> the state key whose presence in a checkpoint means the step has run."""

COUNTED = {"1.1a": "batches", "1.1b": "detections", "1.1c": "query_sets", "1.1e": "relation_sets"}
"""Fan-out step -> the state list with one entry per finished call."""


class ExtractionSteps(Static):
    """One line per step: its mark, label, counts and latest message."""

    DEFAULT_CSS = "ExtractionSteps { height: auto; padding: 0 1; }"

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.reset()

    def reset(self) -> None:
        self.states = {step: "pending" for step, _ in STEPS}
        self.counts: dict[str, str] = {}
        self.finished: dict[str, int] = {}
        self.totals: dict[str, int] = {}
        self.messages: dict[str, str] = {}

    def on_mount(self) -> None:
        self.refresh_steps()

    def replay(self, events: list[RunEvent]) -> None:
        """Start over and show a run's events so far (a screen opened mid-run)."""
        self.reset()
        for event in events:
            self.apply(event, refresh=False)
        self.refresh_steps()

    def seed(self, values: dict) -> None:
        """Mark done the steps a checkpoint shows have run (a run this app did not drive from
        its start: resumed after a restart); live states already shown are kept."""
        done = {step for step, key in STATE_STEPS if values.get(key)}
        if len(values.get("critique_log") or []) > 1:
            done.add("1.3")  # a refinement ran between two self-critiques
        if values.get("review_round"):
            done.add("2.3")
        for step in done:
            if self.states[step] == "pending":
                self.states[step] = "done"
                entries = values.get(COUNTED.get(step, ""))
                if isinstance(entries, list) and step not in self.finished:
                    self.finished[step] = len(entries)
                    self.counts[step] = str(len(entries))
        self.refresh_steps()

    def apply(self, event: RunEvent, *, refresh: bool = True) -> None:
        """Show one run event."""
        if isinstance(event, NodeStarted | NodeFinished):
            self._node(event)
        elif isinstance(event, Progress):
            self._progress(event.data)
        elif isinstance(event, Interrupted):
            self.states["2.1"] = "waiting"
        elif isinstance(event, Failed):
            for step, state in self.states.items():
                if state == "running":
                    self.states[step] = "failed"
        elif isinstance(event, Done):
            self.states = {
                s: ("done" if v in ("running", "waiting") else v) for s, v in self.states.items()
            }
        if refresh:
            self.refresh_steps()

    def _node(self, event: NodeStarted | NodeFinished) -> None:
        step = NODE_STEPS.get(event.node)
        if step is None:
            return
        if isinstance(event, NodeStarted):
            self.states[step] = "running"
            if step == "2.1":
                self.states[step] = "waiting"
            return
        if event.node in FAN_OUT:
            self.finished[step] = self.finished.get(step, 0) + 1
            total = self.totals.get(step)
            self.counts[step] = (
                f"{self.finished[step]}/{total}" if total else str(self.finished[step])
            )
            if total and self.finished[step] < total:
                return  # the step runs on until its last call finishes
        elif event.node in MERGED and (total := self.totals.get(step)):
            self.finished[step] = total
            self.counts[step] = f"{total}/{total}"
        self.states[step] = "done"

    def _progress(self, data: dict) -> None:
        step = str(data.get("step", ""))
        if step not in self.states:
            return
        if isinstance(data.get("total"), int):
            self.totals[step] = data["total"]
        if data.get("message"):
            self.messages[step] = str(data["message"])

    def shown_state(self, step: str) -> str:
        """The step's state as shown: the relation queries (1.1c) are `skipped` once the
        relation search (1.1d) ran without them (a graph no larger than one pool is pooled
        whole, and no query could add to it)."""
        state = self.states[step]
        if step == "1.1c" and state == "pending" and self.states["1.1d"] != "pending":
            return "skipped"
        return state

    def refresh_steps(self) -> None:
        """One line per step; the latest message is cut (at a word) to the room left."""
        text = Text()
        for step, label in STEPS:
            symbol, style = STEP_MARKS.get(self.shown_state(step), STEP_MARKS["pending"])
            line = Text().append(f"{symbol} ", style=style).append(f"{step:<5}", style="bold")
            line.append(f"{label:<20}")
            if self.counts.get(step):
                line.append(f" {self.counts[step]:>7}", style="cyan")
            if self.messages.get(step):
                room = min(MESSAGE_WIDTH, self.message_room() - line.cell_len - 2)
                if room > 8:
                    line.append(f"  {clip(self.messages[step], room)}", style="dim")
            text.append_text(line).append("\n")
        self.update(text)

    def message_room(self) -> int:
        """Cells a line may take (the widget's width once laid out)."""
        return self.content_region.width or MESSAGE_WIDTH + 40

    def on_resize(self) -> None:
        self.refresh_steps()
