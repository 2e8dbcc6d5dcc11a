"""Typed errors of the model layer. Callers catch `LLMError` for "the model did not answer".

Each class has a `reason` (what kind of failure, one word) so a front end can map any model
error to a message a person can act on (core.problems does) without parsing its text. The
client fills `config` (the role's ModelConfig: model, server, limits), `role` and `attempts`
on the error it raises, so that message can name the model and the limit that was hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from local_llm.config import ModelConfig


class LLMError(RuntimeError):
    """Base of every model-layer failure."""

    reason = "error"
    config: ModelConfig | None = None
    """The ModelConfig of the call that failed (set by the client; None elsewhere)."""
    role: str = ""
    attempts: int = 0
    """How many requests were made before giving up (0: not counted)."""
    deployment: str = ""
    """The server of a pool that failed last ('' when the role has no pool)."""


class StructuredOutputError(LLMError):
    """The model kept answering something that does not validate, after all re-asks."""

    reason = "invalid_answer"

    def __init__(self, message: str, *, raw_text: str, errors: Sequence[str], attempts: int):
        super().__init__(message)
        self.raw_text = raw_text
        """The last raw answer, as the model sent it."""
        self.errors = list(errors)
        """One validation summary per failed attempt, oldest first."""
        self.attempts = attempts
        """How many requests were made."""


class ContextBudgetError(LLMError):
    """A prompt is larger than the role's context budget. Never silently truncated."""

    reason = "context_budget"

    def __init__(self, *, flow: str, node: str, role: str, tokens: int, budget: int):
        where = "/".join(part for part in (flow, node) if part) or "unknown caller"
        super().__init__(
            f"prompt of {tokens} tokens exceeds the context budget of {budget} "
            f"for role {role!r} in {where}; split the work into smaller batches "
            "or raise models.context_budget"
        )
        self.flow, self.node, self.role = flow, node, role
        self.tokens, self.budget = tokens, budget


class ContextWindowError(LLMError):
    """The server refused the prompt as larger than the context it runs the model with."""

    reason = "context_window"


class AuthenticationError(LLMError):
    """The provider refused the API key (HTTP 401/403)."""

    reason = "auth"


class TransientModelError(LLMError):
    """A failure worth retrying: refused connection, timeout, HTTP 5xx or 429."""

    reason = "transient"

    def __init__(self, message: str, *, status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


class ModelUnreachableError(TransientModelError):
    """Nothing answers at the server's address (refused, reset, unknown host)."""

    reason = "unreachable"


class ModelTimeoutError(TransientModelError):
    """The server took longer than the call's timeout."""

    reason = "timeout"


class RateLimitError(TransientModelError):
    """HTTP 429: the provider asks to slow down, possibly saying for how long."""

    reason = "rate_limit"

    def __init__(self, message: str, *, retry_after_s: float | None = None):
        super().__init__(message, status_code=429)
        self.retry_after_s = retry_after_s


class ServerError(TransientModelError):
    """HTTP 5xx (or 408): the server failed to answer this request."""

    reason = "server_error"


class StreamCutError(TransientModelError):
    """A streamed answer ended without the server's finish: the connection was cut mid-answer.

    `text` holds what arrived before the cut (already shown to the user)."""

    reason = "stream_cut"

    def __init__(self, message: str, *, text: str = ""):
        super().__init__(message)
        self.text = text


class PoolUnavailableError(TransientModelError):
    """Every deployment of a role's pool is failing or cooling down after failures."""

    reason = "pool_unavailable"

    def __init__(self, message: str, *, cooling: Sequence[str] = ()):
        super().__init__(message)
        self.cooling = list(cooling)
        """The deployments cooling down (their labels)."""


class ModelUnavailableError(LLMError):
    """The model does not exist on the server (HTTP 404) or the backend is not installed."""

    reason = "not_found"


class LocalModelError(LLMError):
    """The bundled local model could not be started (extra missing, loopback down, crash)."""

    reason = "local_model"
