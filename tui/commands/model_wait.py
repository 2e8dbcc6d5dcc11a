"""What the model is doing while a terminal command waits on it (issue 12: no silent minutes).

The tutor's planner and evaluator answer in one piece, not streamed: on the bundled model a
plan takes minutes, and `noema tutor` showed `tutor>` and nothing else. While a call that shows
no tokens of its own is live, stderr says which call it is, how long it has taken and its
tokens: on a terminal one line rewritten every second, elsewhere (a pipe, a log) one line when
the call starts and one when it ends. A streamed answer's tokens show themselves.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TextIO

from core.activity import ModelActivity
from local_llm import CallActivity

TICK_S = 1.0
CLEAR = "\r\x1b[K"


def call_name(call: CallActivity) -> str:
    """The node asking (`planner`), else the role (`judge`)."""
    return call.node or call.role or "model"


def waiting_text(call: CallActivity, now: float | None = None) -> str:
    """`[planner · 34 s · prompt 2,009 tokens · 12 generated]`."""
    text = f"[{call_name(call)} · {call.elapsed(now):.0f} s · prompt {call.prompt_tokens:,} tokens"
    if call.completion_tokens:
        text += f" · {call.completion_tokens:,} generated"
    return text + "]"


def _shows_itself(call: CallActivity) -> bool:
    """A streamed answer whose tokens are already on the screen."""
    return call.kind == "stream" and call.completion_tokens > 0


class ModelWaitLines:
    """Says on `stream` what the model is doing for the calls that show nothing themselves."""

    def __init__(self, activity: ModelActivity, stream: TextIO | None = None) -> None:
        self.activity = activity
        self.stream = stream = stream or sys.stderr  # looked up now: tests replace it
        self.live_line = stream.isatty()
        self.line_open = False
        """The command's own output has left a line unfinished: the live line waits, as it
        would be drawn over that text (`written` keeps it up to date)."""
        self._shown = False

    def __call__(self, call: CallActivity) -> None:
        """Activity listener (starts and ends only): one line each when not on a terminal."""
        if self.live_line or call.kind == "stream" or call.kind == "embed":
            return
        if call.phase == "started":
            self._write(
                f"[{call_name(call)}: asking the model, prompt {call.prompt_tokens:,} tokens]\n"
            )
        elif call.phase == "finished":
            self._write(
                f"[{call_name(call)}: {call.outcome or 'done'} in {call.elapsed():.0f} s, "
                f"{call.completion_tokens:,} tokens]\n"
            )

    def tick(self) -> None:
        """Rewrite the live line (a terminal only): the oldest call that shows nothing."""
        waiting = [c for c in self.activity.calls() if c.kind != "embed" and not _shows_itself(c)]
        if waiting and not self.line_open:
            self._write(CLEAR + waiting_text(waiting[0]))
            self._shown = True
        elif self._shown:
            self.clear()

    def written(self, text: str) -> None:
        """The command is about to write `text` (the live line makes way) and has written it."""
        self.clear()
        if text:
            self.line_open = not text.endswith("\n")

    def clear(self) -> None:
        if self._shown:
            self._write(CLEAR)
            self._shown = False

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


@asynccontextmanager
async def model_wait_lines(
    activity: ModelActivity, stream: TextIO | None = None
) -> AsyncIterator[ModelWaitLines]:
    """Report waits on the model while the block runs (see the module docstring)."""
    lines = ModelWaitLines(activity, stream)
    activity.listeners.append(lines)
    ticker = asyncio.create_task(_tick(lines)) if lines.live_line else None
    try:
        yield lines
    finally:
        activity.listeners.remove(lines)
        if ticker is not None:
            ticker.cancel()
            with suppress(asyncio.CancelledError):
                await ticker
        lines.clear()


async def _tick(lines: ModelWaitLines) -> None:
    while True:
        await asyncio.sleep(TICK_S)
        lines.tick()
