"""Per-role model configuration, resolved by the caller (core.settings) and passed in."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from local_llm.deployments import Deployment, PoolPolicy

Provider = Literal["litellm", "ollama", "local"]
PROVIDERS: tuple[str, ...] = ("litellm", "ollama", "local")
LOCAL_MODEL = "gemma3-270m"
"""The one model of the `local` provider: the bundled Gemma 3 270M, served by llama.cpp."""


@dataclass(frozen=True)
class ModelConfig:
    """How one role reaches its model.

    `api_key` is read from the environment by the caller; it is excluded from `repr()` so it
    never ends up in a log line or a trace.
    """

    provider: Provider = "litellm"
    """`litellm` (any provider string, e.g. `openai/<name>` with base_url), `ollama`, or
    `local` (the bundled model, its server started on first use)."""
    model: str = "ollama_chat/llama3.2"
    """Model name as the backend expects it."""
    base_url: str | None = None
    """API base URL (llama.cpp / LM Studio / vLLM `/v1`, or the Ollama host)."""
    api_key: str | None = field(default=None, repr=False)
    """Secret from the environment; never logged."""
    api_key_env: str = ""
    """The name of the environment variable the key comes from (for messages only)."""
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
    num_ctx: int | None = None
    """Context the server runs the model with (Ollama `num_ctx`, the local server's context).
    None means `context_budget + max_tokens` of this config, fixed when it is made: a call
    that lowers `max_tokens` keeps the same context, so Ollama never reloads the model."""
    keep_alive: str | None = "30m"
    """How long Ollama keeps the model loaded after a request (Ollama models only)."""
    stop: tuple[str, ...] | None = None
    """Stop sequences sent with every chat request. None: the chat-template turn markers for
    servers that take any number of them (Ollama, the local server, `openai/...` with a
    base_url); none for hosted providers (OpenAI allows only 4)."""
    deployments: tuple[Deployment, ...] = ()
    """Servers sharing this role's work (a pool, see `local_llm.deployments`): when set, the
    role's requests are spread over them by litellm's Router and `model`/`base_url` only name
    the pool in messages."""
    pool: PoolPolicy = field(default_factory=PoolPolicy)
    """How the pool's requests are spread (routing, cooldown, affinity)."""

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(
                f"unknown provider {self.provider!r}; expected one of {', '.join(PROVIDERS)}"
            )
        if self.context_budget <= 0 or self.max_tokens <= 0:
            raise ValueError("context_budget and max_tokens must be positive")
        if self.num_ctx is None:
            object.__setattr__(self, "num_ctx", self.context_budget + self.max_tokens)
        if self.retries < 0 or self.transient_retries < 0 or self.embed_batch_size <= 0:
            raise ValueError("retries, transient_retries must be >= 0 and embed_batch_size > 0")
        if self.deployments and self.provider == "local":
            raise ValueError("the bundled model (provider local) cannot be part of a pool")

    def replace(self, **changes: Any) -> ModelConfig:
        """A copy with some fields changed (None values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    @property
    def context_window(self) -> int:
        """Tokens the server must hold (`num_ctx`): the prompt budget plus the completion."""
        return int(self.num_ctx or self.context_budget + self.max_tokens)

    @property
    def is_pool(self) -> bool:
        """Whether the role's requests are spread over several deployments."""
        return bool(self.deployments)

    def for_deployment(self, deployment: Deployment) -> ModelConfig:
        """This config aimed at one deployment of its pool (its own model, server and key)."""
        return dataclasses.replace(
            self,
            model=deployment.model,
            base_url=deployment.base_url,
            api_key=deployment.api_key,
            api_key_env=deployment.api_key_env,
            provider="litellm",
            deployments=(),
        )

    @property
    def is_ollama(self) -> bool:
        """Whether requests go to an Ollama server (its own client or litellm's routes)."""
        return self.provider == "ollama" or self.model.startswith(("ollama/", "ollama_chat/"))

    def stop_sequences(self) -> list[str]:
        """The stop sequences for a chat request (see `stop`)."""
        if self.stop is not None:
            return list(self.stop)
        from local_llm.turn_markers import TURN_MARKERS

        local_server = self.provider == "local" or (
            self.model.startswith("openai/") and self.base_url is not None
        )
        return list(TURN_MARKERS) if self.is_ollama or local_server else []
