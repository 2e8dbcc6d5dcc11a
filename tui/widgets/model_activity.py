"""What the model is doing right now: the call a screen waits on, its elapsed time and tokens,
and what waits behind it on the model.

The model client reports every request to `Services.activity` (`core.activity`); these widgets
read it on a timer, so elapsed time and streamed tokens move while a person waits. On a server
that answers one request at a time, the oldest live call is being answered and the others wait
behind it ("queued on the model").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Unpack

from rich.text import Text
from textual import getters
from textual.widgets import Static

from local_llm import CallActivity
from tui.frames import in_view
from tui.widgets.options import WidgetOptions

if TYPE_CHECKING:
    from tui.app import NoemaApp

SPINNER = "◐◓◑◒"
TICK_S = 0.5


def short_model(model: str) -> str:
    """The model's name without its provider prefix and path (`openai/x.gguf` -> `x.gguf`)."""
    return model.rsplit("/", 1)[-1] or model


def call_label(call: CallActivity) -> str:
    """Which call it is: flow, node (or kind) and role."""
    what = call.node or call.kind
    if call.kind == "embed":
        what = f"embedding {call.items} text{'s' if call.items != 1 else ''}"
    parts = [p for p in (call.flow, what) if p]
    if call.attempt > 1:
        parts.append(f"re-ask {call.attempt - 1}")
    return " · ".join(parts)


def call_figures(call: CallActivity, now: float) -> str:
    """Elapsed seconds, tokens of the answer so far (a streamed answer: as they arrive), the
    prompt's size (counted before sending)."""
    figures = [f"{call.elapsed(now):.0f} s"]
    if call.kind == "stream" or call.completion_tokens:
        figures.append(f"{call.completion_tokens} tokens")
    figures.append(f"prompt {call.prompt_tokens:,} tokens")
    return " · ".join(figures)


def activity_text(calls: Sequence[CallActivity], run_id: str | None, now: float) -> Text:
    """One line: the call `run_id` waits on (or the model's first call), and what waits."""
    if not calls:
        return Text("model idle", style="dim")
    mine = [c for c in calls if run_id and c.run_id == run_id]
    shown = mine[0] if mine else calls[0]
    spin = SPINNER[int(now / TICK_S) % len(SPINNER)]
    text = Text().append(f"{spin} ", style="bold yellow")
    if not mine and run_id:
        text.append("model busy with another run: ", style="yellow")
    text.append(call_label(shown), style="bold")
    text.append(f"  {call_figures(shown, now)}", style="cyan")
    text.append(f"  ({short_model(shown.model)})", style="dim")
    position = calls.index(shown)
    if position:
        text.append(f"  · {position} call{'s' if position > 1 else ''} ahead", style="magenta")
    behind = len(calls) - position - 1
    if behind:
        text.append(f"  · {behind} waiting behind it", style="magenta")
    return text


class ModelActivityLine(Static):
    """One line under a workflow screen's progress: the model call its run waits on.

    `follow()` returns the run id the screen shows (None: any call); the line ticks while
    calls are live, so elapsed time and tokens move.
    """

    DEFAULT_CSS = "ModelActivityLine { height: 1; padding: 0 1; }"

    if TYPE_CHECKING:
        app = getters.app(NoemaApp)

    def __init__(
        self, follow: Callable[[], str | None] = lambda: None, **kwargs: Unpack[WidgetOptions]
    ) -> None:
        super().__init__("", **kwargs)
        self.follow = follow

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(TICK_S, self.tick)

    def live_calls(self) -> list[CallActivity]:
        services = self.app.services
        return services.activity.calls() if services is not None else []

    def tick(self) -> None:
        if not in_view(self.screen):
            return
        text = activity_text(self.live_calls(), self.follow(), time.monotonic())
        if text.plain != getattr(self, "_shown", None):
            self._shown = text.plain
            self.update(text, layout=False)  # one line, whatever it says: no layout


def queue_text(calls: Sequence[CallActivity], queued_runs: int) -> Text:
    """Home's queue indicator: calls waiting on the model and runs waiting to start."""
    waiting = max(0, len(calls) - 1)
    if not waiting and not queued_runs:
        return Text("nothing waiting", style="dim")
    parts = []
    if waiting:
        labels = ", ".join(call_label(c) for c in calls[1:4]) + ("…" if waiting > 3 else "")
        parts.append(f"{waiting} call{'s' if waiting > 1 else ''} behind it ({labels})")
    if queued_runs:
        parts.append(f"{queued_runs} run{'s' if queued_runs > 1 else ''} queued")
    return Text(" · ".join(parts), style="magenta")
