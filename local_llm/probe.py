"""Connection checks used by `noema doctor` and the TUI model screen."""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel

from local_llm.client import LLMClient

PING = [
    {
        "role": "user",
        "content": 'This is a connection test. Reply with exactly this JSON: {"status": "ok"}',
    }
]


class Ping(BaseModel):
    """The smallest structured answer: grammar-constrained models can only say "ok"."""

    status: Literal["ok"]


async def structured_round_trip(
    client: LLMClient, role: str = "default", timeout_s: float | None = None
) -> float:
    """Seconds one validated structured answer took; raises `LLMError` when it fails."""
    started = time.perf_counter()
    await client.structured(
        PING, Ping, role=role, max_tokens=32, timeout_s=timeout_s, node="connection_test"
    )
    return time.perf_counter() - started


async def embedding_round_trip(client: LLMClient, role: str = "embedding") -> int:
    """The dimension of the role's embeddings; raises `LLMError` when the call fails."""
    (vector,) = await client.embed(["connection test"], role=role, node="connection_test")
    if not vector:
        from local_llm.errors import LLMError

        raise LLMError("the embedding model returned an empty vector")
    return len(vector)
