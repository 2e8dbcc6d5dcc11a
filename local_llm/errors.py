"""Typed errors of the model layer. Callers catch `LLMError` for "the model did not answer"."""

from __future__ import annotations

from collections.abc import Sequence


class LLMError(RuntimeError):
    """Base of every model-layer failure."""


class StructuredOutputError(LLMError):
    """The model kept answering something that does not validate, after all re-asks."""

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

    def __init__(self, *, flow: str, node: str, role: str, tokens: int, budget: int):
        where = "/".join(part for part in (flow, node) if part) or "unknown caller"
        super().__init__(
            f"prompt of {tokens} tokens exceeds the context budget of {budget} "
            f"for role {role!r} in {where}; split the work into smaller batches "
            "or raise models.context_budget"
        )
        self.flow, self.node, self.role = flow, node, role
        self.tokens, self.budget = tokens, budget


class TransientModelError(LLMError):
    """A failure worth retrying: refused connection, timeout, HTTP 5xx or 429."""

    def __init__(self, message: str, *, status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


class ModelUnavailableError(LLMError):
    """The model does not exist on the server (HTTP 404) or the backend is not installed."""
