"""Model health checks shared by `noema doctor`, `noema demo` and the model screen.

`reachable` only opens a connection (or lists models where the backend can), so it is cheap
enough for the home screen; `round_trip` makes one real structured-output request with a
bounded answer, so it proves the whole path (prompt, grammar, parsing, validation).
"""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from local_llm import LLMClient, ModelConfig

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
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


def _http_status(url: str, timeout_s: float) -> int:
    try:
        with _NO_PROXY.open(url, timeout=timeout_s) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _error(exc: BaseException, config: ModelConfig | None = None) -> str:
    """The one-line message a person can act on (core.problems), never raw library text."""
    from core.problems import explain
    from local_llm.retry import classify

    typed = classify(exc)
    if config is not None and getattr(typed, "config", "missing") is None:
        typed.config = config  # type: ignore[attr-defined]
    return explain(typed).line[:300]


async def reachable(llm: LLMClient, role: str = "default", timeout_s: float = 3.0) -> ProbeResult:
    """Whether the role's server answers at all (no model request is made)."""
    config = llm.config(role)
    if config.provider == "local":
        return _local_installed()
    backend = llm.backend(role)
    started = time.perf_counter()
    try:
        if hasattr(backend, "list_models"):
            models = await asyncio.wait_for(backend.list_models(config), timeout_s)
            return ProbeResult(True, f"{len(models)} models installed", _ms(started), models)
        if not config.base_url:
            return ProbeResult(True, f"hosted provider ({config.model}); not checked")
        status = await asyncio.to_thread(_http_status, _probe_url(config.base_url), timeout_s)
    except (OSError, TimeoutError, Exception) as exc:  # noqa: BLE001 - any failure is "unreachable"
        return ProbeResult(False, _error(exc, config), _ms(started))
    if status >= 500:
        return ProbeResult(False, f"{config.base_url} fails (HTTP {status})", _ms(started))
    return ProbeResult(True, f"{config.base_url} answers", _ms(started))


def _local_installed() -> ProbeResult:
    """The bundled model needs no server to be up: it starts on first use."""
    from local_llm.local_server import is_available

    if is_available():
        return ProbeResult(True, "the bundled model (starts when first needed)")
    return ProbeResult(False, "the bundled model is not installed: pip install 'noema[local]'")


def _probe_url(base_url: str) -> str:
    """OpenAI-compatible servers (llama.cpp, LM Studio, vLLM) answer GET /v1/models."""
    base = base_url.rstrip("/")
    return f"{base}/models" if base.endswith("/v1") else base


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
    where = f" @ {config.base_url}" if config.base_url else ""
    return f"{config.model}{where} ({config.provider})"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
