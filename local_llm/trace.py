"""One record per model request, handed to the trace sink (core stores it in `traces`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["ok", "invalid", "error", "budget"]
Kind = Literal["structured", "stream", "embed"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallTrace:
    """What one model request cost and how it ended."""

    flow: str
    node: str
    role: str
    model: str
    kind: Kind
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    outcome: Outcome
    detail: str = ""
    run_id: str = ""
    attempt: int = 1
    deployment: str = ""
    """The server of a pool that answered (or failed last); '' for a role without a pool."""


TraceSink = Callable[[CallTrace], None]


def emit(sink: TraceSink | None, trace: CallTrace) -> None:
    """Hand a trace to the sink; a failing sink is logged, never breaks the model call."""
    if sink is None:
        return
    try:
        sink(trace)
    except Exception:  # noqa: BLE001 - tracing must not turn a good answer into a failure
        log.exception("trace sink failed for %s/%s", trace.flow, trace.node)
