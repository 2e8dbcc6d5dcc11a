"""What models a configured server has: Ollama's `/api/tags` (+ `/api/show` for the context
length and parameter count), an OpenAI-compatible server's `/v1/models`, the bundled model.

Plain HTTP (httpx), no model request: cheap enough for a health check or a picker screen.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from local_llm.config import LOCAL_MODEL, ModelConfig

if TYPE_CHECKING:
    import httpx
from local_llm.retry import classify

OLLAMA_URL = "http://127.0.0.1:11434"
LOCAL_CONTEXT = 32768
"""Gemma 3 270M's trained context length."""


@dataclass(frozen=True)
class ServerModel:
    """One model a server offers (fields the server does not report are None)."""

    name: str
    size_bytes: int | None = None
    parameters: str | None = None
    """Parameter count as the server says it (`3.2B`, `270M`)."""
    context_length: int | None = None
    """The longest context the model was trained for."""
    family: str | None = None
    quantization: str | None = None


def server_kind(config: ModelConfig) -> str:
    """`local`, `ollama`, `openai` (an OpenAI-compatible server at base_url) or `hosted`."""
    if config.provider == "local":
        return "local"
    if config.is_ollama:
        return "ollama"
    return "openai" if config.base_url else "hosted"


def same_model(listed: str, wanted: str) -> bool:
    """Whether a listed name is the configured one (`llama3.2` is `llama3.2:latest`)."""
    wanted = wanted.split("/", 1)[1] if wanted.startswith(("ollama", "openai/")) else wanted
    return listed == wanted or listed == f"{wanted}:latest" or f"{listed}:latest" == wanted


def _client(base_url: str, timeout_s: float, api_key: str | None = None) -> httpx.AsyncClient:
    import httpx

    host = urlparse(base_url).hostname or ""
    local = host in ("127.0.0.1", "localhost", "::1")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    # a plain-http server needs no TLS context (loading the CA bundle costs ~0.1-0.5 s)
    plain = urlparse(base_url).scheme == "http"
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=timeout_s,
        trust_env=not local,
        headers=headers,
        verify=not plain,
    )


async def list_server_models(
    config: ModelConfig, *, timeout_s: float = 5.0, details: bool = True
) -> list[ServerModel]:
    """The models the role's server has. Raises typed `LLMError`s (unreachable, ...);
    a hosted provider (no base_url) cannot be listed: an empty list."""
    kind = server_kind(config)
    if kind == "local":
        return [
            ServerModel(
                LOCAL_MODEL,
                parameters="270M",
                context_length=LOCAL_CONTEXT,
                family="gemma3",
                quantization="Q4_K_M",
            )
        ]
    if kind == "hosted":
        return []
    try:
        if kind == "ollama":
            return await _ollama_models(config, timeout_s, details)
        return await _openai_models(config, timeout_s)
    except Exception as exc:
        typed = classify(exc)
        if typed is exc:
            raise
        raise typed from exc


async def _ollama_models(config: ModelConfig, timeout_s: float, details: bool) -> list[ServerModel]:
    async with _client(config.base_url or OLLAMA_URL, timeout_s, config.api_key) as http:
        response = await http.get("/api/tags")
        response.raise_for_status()
        tags = response.json().get("models") or []
        shows = await asyncio.gather(*(_show(http, t["name"]) for t in tags)) if details else []
    models = []
    for index, tag in enumerate(tags):
        info = tag.get("details") or {}
        show = shows[index] if shows else {}
        models.append(
            ServerModel(
                name=tag["name"],
                size_bytes=tag.get("size"),
                parameters=info.get("parameter_size"),
                context_length=_context_length(show),
                family=info.get("family"),
                quantization=info.get("quantization_level"),
            )
        )
    return models


async def _show(http: httpx.AsyncClient, name: str) -> dict[str, object]:
    try:
        response = await http.post("/api/show", json={"model": name})
        shown = response.json() if response.status_code == 200 else {}
        return shown if isinstance(shown, dict) else {}
    except Exception:  # noqa: BLE001 - details are optional; the list itself succeeded
        return {}


def _context_length(show: dict[str, object]) -> int | None:
    info = show.get("model_info")
    for key, value in (info if isinstance(info, dict) else {}).items():
        if key.endswith(".context_length") and isinstance(value, int):
            return value
    return None


async def _openai_models(config: ModelConfig, timeout_s: float) -> list[ServerModel]:
    base = (config.base_url or "").rstrip("/")
    async with _client(base, timeout_s, config.api_key) as http:
        response = await http.get("/models")
        response.raise_for_status()
        data = response.json().get("data") or []
    models = []
    for item in data:
        meta = item.get("meta") or {}
        models.append(
            ServerModel(
                name=str(item.get("id", "")),
                size_bytes=meta.get("size"),
                context_length=meta.get("n_ctx_train") or item.get("context_length"),
            )
        )
    return models
