"""Per-role model configuration, resolved by the caller (core.settings) and passed in."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

Provider = Literal["litellm", "ollama"]


@dataclass(frozen=True)
class ModelConfig:
    """How one role reaches its model.

    `api_key` is read from the environment by the caller; it is excluded from `repr()` so it
    never ends up in a log line or a trace.
    """

    provider: Provider = "litellm"
    """`litellm` (any provider string, e.g. `openai/<name>` with base_url) or `ollama`."""
    model: str = "ollama_chat/llama3.2"
    """Model name as the backend expects it."""
    base_url: str | None = None
    """API base URL (llama.cpp / LM Studio / vLLM `/v1`, or the Ollama host)."""
    api_key: str | None = field(default=None, repr=False)
    """Secret from the environment; never logged."""
    temperature: float = 0.2
    """Sampling temperature."""
    context_budget: int = 8192
    """Maximum prompt tokens; a larger prompt raises ContextBudgetError."""
    max_tokens: int = 1024
    """Maximum completion tokens per call."""
    timeout_s: float = 120.0
    """Timeout of one model request, in seconds."""
    retries: int = 2
    """Re-asks of an invalid structured answer (so at most retries + 1 requests)."""
    transient_retries: int = 3
    """Retries of a transient failure (connection, timeout, 5xx, 429)."""
    backoff_s: float = 0.5
    """Base delay of the exponential backoff between transient retries."""
    embed_batch_size: int = 32
    """Texts per embedding request."""

    def __post_init__(self) -> None:
        if self.provider not in ("litellm", "ollama"):
            raise ValueError(f"unknown provider {self.provider!r}; expected 'litellm' or 'ollama'")
        if self.context_budget <= 0 or self.max_tokens <= 0:
            raise ValueError("context_budget and max_tokens must be positive")
        if self.retries < 0 or self.transient_retries < 0 or self.embed_batch_size <= 0:
            raise ValueError("retries, transient_retries must be >= 0 and embed_batch_size > 0")

    def replace(self, **changes: Any) -> ModelConfig:
        """A copy with some fields changed (None values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    @property
    def context_window(self) -> int:
        """Tokens the server must hold: the prompt budget plus the completion."""
        return self.context_budget + self.max_tokens
