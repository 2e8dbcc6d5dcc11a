"""Live model activity: the requests waiting on a model right now, and their tokens so far.

Traces say what a call cost once it is over; activity says what is happening while a person
waits. `LLMClient(..., activity=sink)` hands the sink a `CallActivity` when a request starts,
as streamed tokens arrive, and when it ends (`phase` says which). A front end keeps the latest
one per `call_id` to show elapsed time, tokens and which call it is. Like a trace sink, a
failing activity sink is logged and never breaks the call; it may be called from any thread
that makes requests, so it must be thread-safe and quick.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

Phase = Literal["started", "tokens", "finished"]

log = logging.getLogger(__name__)
_ids = itertools.count(1)


@dataclass(frozen=True)
class CallActivity:
    """One model request as it stands (a new value per phase; `call_id` ties them together)."""

    call_id: int
    phase: Phase
    role: str
    model: str
    kind: str
    """`structured`, `stream` or `embed`."""
    flow: str = ""
    node: str = ""
    run_id: str = ""
    prompt_tokens: int = 0
    """Tokens of the prompt as counted before sending (texts' tokens for embeddings)."""
    completion_tokens: int = 0
    """Tokens of the answer so far (streamed pieces counted as they come; a non-streamed
    answer is counted when it arrives)."""
    started: float = 0.0
    """`time.monotonic()` when the request started."""
    attempt: int = 1
    items: int = 0
    """Texts in an embedding request (0 for chat)."""
    outcome: str = ""
    """`ok`, `error` or `stopped` (cancelled) once finished."""

    def elapsed(self, now: float | None = None) -> float:
        """Seconds since the request started."""
        return (time.monotonic() if now is None else now) - self.started


ActivitySink = Callable[[CallActivity], None]


class CallWatch:
    """Reports one request to an activity sink: started on creation, then tokens, finished."""

    def __init__(self, sink: ActivitySink | None, **fields: object) -> None:
        self.sink = sink
        self.current: CallActivity | None = None
        if sink is not None:
            info = CallActivity(next(_ids), "started", started=time.monotonic(), **fields)  # type: ignore[arg-type]
            self._emit(info)

    def tokens(self, completion_tokens: int) -> None:
        """The answer holds this many tokens so far."""
        if self.current is not None:
            self._emit(replace(self.current, phase="tokens", completion_tokens=completion_tokens))

    def finished(self, outcome: str, completion_tokens: int | None = None) -> None:
        """The request ended (`ok` or `error`); the final token count when known."""
        if self.current is None or self.current.phase == "finished":
            return
        tokens = self.current.completion_tokens if completion_tokens is None else completion_tokens
        self._emit(
            replace(self.current, phase="finished", outcome=outcome, completion_tokens=tokens)
        )

    def _emit(self, activity: CallActivity) -> None:
        self.current = activity
        try:
            self.sink(activity)  # type: ignore[misc]
        except Exception:  # noqa: BLE001 - showing activity must not fail a model call
            log.exception("activity sink failed for %s/%s", activity.flow, activity.node)
