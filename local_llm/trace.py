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
    cached_tokens: int | None = None
    """Prompt tokens the server reused from its cache (None: not reported); the evaluated
    ones are `prompt_tokens - cached_tokens`."""
    finish_reason: str = ""
    """How the answer ended (`stop`, `length` when cut at `max_tokens`; '' without answer)."""
    max_tokens: int = 0
    """The completion limit the request was sent with."""
    answer_bound: int | None = None
    """Structured calls: tokens of the longest answer the schema allows (`local_llm.grammar`);
    None when the schema leaves it unbounded (a string without maxLength...)."""
    prompt_ms: float | None = None
    """The server's time evaluating the prompt, when it reports it (llama.cpp)."""
    generation_ms: float | None = None
    """The server's time generating the answer, when it reports it (llama.cpp)."""
    started: float = 0.0
    """`time.perf_counter()` when the request was sent (the latency runs from there)."""

    @property
    def cut(self) -> bool:
        """Whether the answer was cut at the token limit."""
        return self.finish_reason == "length"

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
