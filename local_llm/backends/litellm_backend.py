"""Backend over litellm: any provider string (`openai/<name>` + api_base for llama.cpp's server,
LM Studio, vLLM; `ollama_chat/...`; hosted providers). litellm is imported on first use only.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any

from local_llm.backends.base import Completion, JsonSchema, Message
from local_llm.config import ModelConfig

_LOCAL_KEY = "sk-no-key-required"


def load_litellm() -> Any:
    """Import litellm with its cost map read locally, telemetry off and no retries of its own."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.disable_hf_tokenizer_download = True
    litellm.num_retries = 0
    # litellm logs through its own "LiteLLM" logger to stderr; in a terminal app those lines
    # tear the screen. Our own traces record every call; keep only litellm's errors.
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.ERROR)
    return litellm


def _common(config: ModelConfig) -> dict[str, Any]:
    """Arguments shared by chat and embedding requests."""
    api_key = config.api_key
    if api_key is None and config.base_url and config.model.startswith("openai/"):
        api_key = _LOCAL_KEY  # OpenAI-compatible local servers need some key string
    args: dict[str, Any] = {"model": config.model, "timeout": config.timeout_s, "num_retries": 0}
    if config.base_url:
        args["api_base"] = config.base_url
    if api_key is not None:
        args["api_key"] = api_key
    return args


def response_format(json_schema: JsonSchema, name: str) -> dict[str, Any]:
    """OpenAI structured-output request; llama.cpp's server turns it into a grammar."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": json_schema, "strict": True},
    }


class LiteLLMBackend:
    """Chat, streaming and embeddings through `litellm.acompletion` / `litellm.aembedding`."""

    def __init__(self) -> None:
        self._litellm: Any = None

    @property
    def litellm(self) -> Any:
        if self._litellm is None:
            self._litellm = load_litellm()
        return self._litellm

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None,
        config: ModelConfig,
        schema_name: str = "answer",
    ) -> Completion:
        args = _common(config)
        if json_schema is not None:
            args["response_format"] = response_format(json_schema, schema_name)
        response = await self.litellm.acompletion(
            messages=[dict(m) for m in messages],
            temperature=config.temperature,
            max_tokens=config.max_tokens,
            **args,
        )
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        return Completion(
            text=choice.message.content or "",
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            finish_reason=choice.finish_reason,
        )

    async def stream(
        self, messages: Sequence[Message], *, config: ModelConfig
    ) -> AsyncIterator[str]:
        response = await self.litellm.acompletion(
            messages=[dict(m) for m in messages],
            temperature=config.temperature,
            max_tokens=config.max_tokens,
            stream=True,
            **_common(config),
        )
        async for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        response = await self.litellm.aembedding(input=list(texts), **_common(config))
        rows = sorted(response.data, key=lambda row: _get(row, "index", 0))
        return [list(_get(row, "embedding")) for row in rows]


def _get(row: Any, key: str, default: Any = None) -> Any:
    return row.get(key, default) if isinstance(row, dict) else getattr(row, key, default)
