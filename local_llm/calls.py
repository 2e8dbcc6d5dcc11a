"""Which call a backend is answering: the client sets it around every backend request.

Backends answer messages; the client knows the rest (the flow and node that asked, the role,
the kind of call). A backend that needs it (the scripted one of unit tests answers by node,
not by guessing from the prompt) reads `current_call()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class CallIdentity:
    """Who is asking: the flow and graph node, the model role, the kind of call."""

    flow: str
    node: str
    role: str
    kind: str
    run_id: str = ""


_CURRENT: ContextVar[CallIdentity | None] = ContextVar("local_llm_current_call", default=None)


def current_call() -> CallIdentity | None:
    """The call the client is making in this task right now, or None outside one."""
    return _CURRENT.get()


@contextmanager
def making(identity: CallIdentity) -> Iterator[None]:
    """Mark the backend request made inside as this call (contextvars: per task)."""
    token = _CURRENT.set(identity)
    try:
        yield
    finally:
        _CURRENT.reset(token)
