"""A pool of servers for one role: the deployments of a model and how requests are spread.

A role whose `ModelConfig.deployments` is not empty is served by
`local_llm.backends.pool_backend.PoolBackend`: litellm's Router spreads its requests over the
deployments (several Ollama, vLLM or llama.cpp servers of the same model, a hosted fallback),
with the routing strategy, cooldown and retries of `PoolPolicy`. This module only describes
the pool; it imports nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

Routing = Literal["least-busy", "latency-based", "simple-shuffle"]
ROUTINGS: tuple[str, ...] = ("least-busy", "latency-based", "simple-shuffle")
Affinity = Literal["run", "none"]
LiteLLMRouting = Literal["least-busy", "latency-based-routing", "simple-shuffle"]
LITELLM_ROUTING: dict[str, LiteLLMRouting] = {
    "least-busy": "least-busy",
    "latency-based": "latency-based-routing",
    "simple-shuffle": "simple-shuffle",
}
"""Our names of the routing strategies -> litellm's `routing_strategy`."""


@dataclass(frozen=True)
class Deployment:
    """One server of a pool (or a hosted model standing by as its fallback)."""

    model: str
    """The model as litellm names it (`ollama_chat/qwen2.5:7b`, `openai/qwen2.5-7b`, `gpt-4o-mini`)."""
    base_url: str | None = None
    """The server (`http://gpu1:11434`, `http://gpu2:8080/v1`); None for hosted providers."""
    max_parallel: int = 1
    """Requests this server works on at once (llama.cpp `--parallel`, `OLLAMA_NUM_PARALLEL`,
    a vLLM batch); more wait for one of its slots instead of piling up on it."""
    order: int = 1
    """1: used first. A higher order is a fallback, used only while every deployment of a
    lower order is failing or cooling down."""
    name: str = ""
    """How traces and messages name it ('' : its server's host:port, else its model)."""
    api_key: str | None = field(default=None, repr=False)
    """Secret from the environment; never logged."""
    api_key_env: str = ""
    """The environment variable the key comes from (for messages only)."""

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("a deployment needs a model")
        if self.max_parallel < 1 or self.order < 1:
            raise ValueError("a deployment's max_parallel and order must be at least 1")

    @property
    def label(self) -> str:
        """Its name, else `host:port` of its server, else its model."""
        if self.name:
            return self.name
        if self.base_url:
            parts = urlsplit(self.base_url)
            return parts.netloc or self.base_url
        return self.model

    @property
    def server(self) -> tuple[str, str]:
        """What identifies the server's slots: two roles on the same server share them."""
        return (self.base_url or "", self.model)


@dataclass(frozen=True)
class PoolPolicy:
    """How litellm's Router spreads a role's requests over its deployments."""

    routing: Routing = "least-busy"
    """`least-busy` (fewest requests in flight), `latency-based` (fastest recent answers)
    or `simple-shuffle` (random, weighted by free slots)."""
    allowed_fails: int = 1
    """Failures of one deployment tolerated within `cooldown_s` before it cools down."""
    cooldown_s: float = 30.0
    """How long a failing deployment gets no requests."""
    affinity: Affinity = "run"
    """`run`: every call of one run goes to the same server while it is healthy (its prompt
    cache stays warm: llama.cpp `cache_prompt`, Ollama's loaded context); `none`: each call
    goes wherever the routing says."""
    affinity_ttl_s: int = 3600
    """How long a run stays pinned to its server after its last call."""

    def __post_init__(self) -> None:
        if self.routing not in ROUTINGS:
            raise ValueError(
                f"unknown routing {self.routing!r}; expected one of {', '.join(ROUTINGS)}"
            )
        if self.allowed_fails < 0 or self.cooldown_s < 0:
            raise ValueError("allowed_fails and cooldown_s must be >= 0")


def capacity(deployments: tuple[Deployment, ...]) -> int:
    """Requests the first-order deployments work on at once (what a pool runs in parallel)."""
    if not deployments:
        return 0
    first = min(d.order for d in deployments)
    return sum(d.max_parallel for d in deployments if d.order == first)


def describe_pool(deployments: tuple[Deployment, ...]) -> str:
    """`3 servers (gpu1:11434, gpu2:11434, gpu3:11434) + fallback gpt-4o-mini`."""
    first = min(d.order for d in deployments)
    primary = [d.label for d in deployments if d.order == first]
    fallback = [d.label for d in deployments if d.order != first]
    noun = "server" if len(primary) == 1 else "servers"
    text = f"{len(primary)} {noun} ({', '.join(primary)})"
    return text + (f" + fallback {', '.join(fallback)}" if fallback else "")
