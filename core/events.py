"""Typed events a run streams to its front ends (TUI screens, CLI).

A node's update, its progress data and the final state are pieces of the flow's own state
(each flow's TypedDict, read by that flow's screens): the runtime, which runs every flow,
cannot name it, hence `dict[str, Any]` there. An interrupt's payload is a review as plain data
(`core.reviews.Review.payload()`), validated back into its model by whoever reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RunEvent:
    """Base of every run event."""

    run_id: str


@dataclass(frozen=True)
class NodeStarted(RunEvent):
    """A node began executing."""

    node: str


@dataclass(frozen=True)
class NodeFinished(RunEvent):
    """A node finished; `update` is the partial state it returned."""

    node: str
    update: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Progress(RunEvent):
    """Progress a node reported through `get_stream_writer()`."""

    node: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Interrupted(RunEvent):
    """The run stopped at `interrupt()` and waits for a human; `payload` is what it shows (a
    review model as plain data: `core.reviews.Review.payload()`, validated back by readers)."""

    payload: dict[str, object]
    interrupt_id: str = ""


@dataclass(frozen=True)
class Done(RunEvent):
    """The run reached its end; `output` is the final state."""

    output: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Failed(RunEvent):
    """The run failed; the error is kept on the run and the checkpoint allows a retry."""

    error: str
