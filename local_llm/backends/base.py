"""The interface every backend implements, and what a completion returns."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from local_llm.config import ModelConfig

Message = Mapping[str, object]
"""A chat message (`role`, `content`, ...), passed on to the server as it is."""
JsonSchema = dict[str, Any]


@dataclass(frozen=True)
class Completion:
    """One model answer. Token counts are None when the server did not report usage."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = "stop"
    """`stop`, or `length` when the answer was cut by max_tokens."""
    cached_tokens: int | None = None
    """Prompt tokens the server reused from its prompt cache instead of evaluating them
    (OpenAI's `usage.prompt_tokens_details.cached_tokens`; llama.cpp's `timings.cache_n`)."""
    prompt_ms: float | None = None
    """The server's time evaluating the prompt (llama.cpp's `timings`), when reported."""
    generation_ms: float | None = None
    """The server's time generating the answer (llama.cpp's `timings`), when reported."""
    deployment: str = ""
    """The server of a pool that answered ('' when the role has no pool)."""


@dataclass(frozen=True)
class PullProgress:
    """One progress step of downloading a model (Ollama `pull`)."""

    status: str
    completed: int | None = None
    total: int | None = None

    @property
    def fraction(self) -> float | None:
        """Completed share in [0, 1], when the server reports sizes."""
        if not self.total or self.completed is None:
            return None
        return min(1.0, self.completed / self.total)


@runtime_checkable
class Backend(Protocol):
    """A way to reach models. Backends raise raw or typed errors; the client classifies them."""

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None,
        config: ModelConfig,
        schema_name: str = "answer",
    ) -> Completion:
        """One chat completion, constrained to `json_schema` when given."""
        ...

    def stream(
        self, messages: Sequence[Message], *, config: ModelConfig
    ) -> AsyncIterator[str | Completion]:
        """Text pieces of one chat completion as they arrive; a backend may end with one
        `Completion` of empty text reporting on the answer: the usage and finish reason the
        server reported, the deployment that gave it."""
        ...

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        """One vector per text, in order."""
        ...
