"""Backend over litellm: any provider string (`openai/<name>` + api_base for llama.cpp's server,
LM Studio, vLLM; `ollama_chat/...`; hosted providers).

litellm costs seconds to import (3.6 s on an idle 2-core machine, far more under load), so it
is imported on first use only, and `warm()` / `prepare()` let the client import it in the
background at start-up and before a call's timeout starts, never inside it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from types import ModuleType
from typing import TypedDict

from local_llm.backends.base import Completion, JsonSchema, Message
from local_llm.backends.responses import Usage, answer_of, field, piece_of, usage_of, vectors_of
from local_llm.config import ModelConfig
from local_llm.errors import StreamCutError

_LOCAL_KEY = "sk-no-key-required"


class ResponseFormat(TypedDict):
    """OpenAI's structured-output request (`response_format`)."""

    type: str
    json_schema: dict[str, object]


class RequestArgs(TypedDict, total=False):
    """The keyword arguments noema gives `litellm.acompletion` / `aembedding` (and a pool's
    Router, per deployment and per request)."""

    model: str
    timeout: float
    num_retries: int
    api_base: str
    api_key: str
    temperature: float
    max_tokens: int
    stop: list[str] | None
    num_ctx: int
    keep_alive: str
    response_format: ResponseFormat
    stream_options: dict[str, bool]
    metadata: dict[str, str]
    extra_body: dict[str, object]


def load_litellm() -> ModuleType:
    """Import litellm with its cost map read locally, telemetry off and no retries of its own."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.disable_hf_tokenizer_download = True
    litellm.num_retries = 0
    # the stop sequences noema sends are the chat template's turn markers, only to servers
    # that take any number of them (Ollama, llama.cpp, LM Studio, vLLM; see ModelConfig.stop)
    litellm.disable_stop_sequence_limit = True
    # litellm logs through its own "LiteLLM" logger to stderr; in a terminal app those lines
    # tear the screen. Our own traces record every call; keep only litellm's errors.
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.ERROR)
    return litellm


def _ollama_args(config: ModelConfig) -> RequestArgs:
    """`num_ctx` and `keep_alive` for Ollama models: without num_ctx Ollama runs its default
    context (2048-4096 tokens) and cuts longer prompts silently; litellm forwards both."""
    if not config.is_ollama:
        return {}
    args: RequestArgs = {"num_ctx": config.context_window}
    if config.keep_alive:
        args["keep_alive"] = config.keep_alive
    return args


def _chat_args(config: ModelConfig, *, constrained: bool = False) -> RequestArgs:
    """Arguments of a chat request: sampling, stop sequences, Ollama's context.

    A `constrained` request (a JSON schema the server turns into a grammar) gets no stop
    sequences: the grammar ends the answer, and a marker a small model writes inside a JSON
    string would otherwise cut the answer mid-string (Gemma 3 270M on llama.cpp did, in a
    judge's answer, deterministically for one prompt).

    `ollama/NAME` chats go to Ollama's chat route (`ollama_chat/NAME`): litellm's `ollama/`
    route renders its own `### User:` prompt instead of the model's chat template and puts
    `keep_alive` where Ollama ignores it."""
    if config.model.startswith("ollama/"):
        config = config.replace(model="ollama_chat/" + config.model.removeprefix("ollama/"))
    args: RequestArgs = {
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        **_common(config),
    }
    if not constrained and (stop := config.stop_sequences()):
        args["stop"] = stop
    return {**args, **_ollama_args(config)}


def _common(config: ModelConfig) -> RequestArgs:
    """Arguments shared by chat and embedding requests."""
    api_key = config.api_key
    if api_key is None and config.base_url and config.model.startswith("openai/"):
        api_key = _LOCAL_KEY  # OpenAI-compatible local servers need some key string
    args: RequestArgs = {"model": config.model, "timeout": config.timeout_s, "num_retries": 0}
    if config.base_url:
        args["api_base"] = config.base_url
    if api_key is not None:
        args["api_key"] = api_key
    return args


def _reports_stream_usage(config: ModelConfig) -> bool:
    """OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, OpenAI) send the usage of a
    stream in a last chunk when asked; other providers may refuse the option."""
    return config.model.startswith("openai/") or (
        "/" not in config.model and config.base_url is None
    )


def _llama_body(*, grammar: str | None = None, slot: int | None = None) -> dict[str, object]:
    """llama.cpp's own request fields: the grammar, the slot (`id_slot`), and the prompt
    cache asked for explicitly with either (they only ever go to a llama.cpp server)."""
    body: dict[str, object] = {}
    if grammar is not None:
        body["grammar"] = grammar
    if slot is not None:
        body["id_slot"] = slot
    return {**body, "cache_prompt": True} if body else {}


def response_format(json_schema: JsonSchema, name: str) -> ResponseFormat:
    """OpenAI structured-output request; llama.cpp's server turns it into a grammar."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": json_schema, "strict": True},
    }


class LiteLLMBackend:
    """Chat, streaming and embeddings through `litellm.acompletion` / `litellm.aembedding`."""

    def __init__(self) -> None:
        self._litellm: ModuleType | None = None

    @property
    def litellm(self) -> ModuleType:
        if self._litellm is None:
            self._litellm = load_litellm()
        return self._litellm

    def warm(self) -> None:
        """Import litellm now (blocking; the client runs it in a background thread)."""
        _ = self.litellm

    async def prepare(self, config: ModelConfig, kind: str = "structured") -> None:
        """Import litellm off the event loop before a call's timeout starts (a concurrent
        `warm()` in another thread is waited for by Python's import lock, not repeated)."""
        if self._litellm is None:
            await asyncio.to_thread(self.warm)

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None,
        config: ModelConfig,
        schema_name: str = "answer",
        grammar: str | None = None,
        slot: int | None = None,
    ) -> Completion:
        """One chat completion, constrained to `json_schema`, or to `grammar` (GBNF, which
        llama.cpp's server takes in place of the schema: `local_llm.gbnf`) when given;
        `slot` is the llama.cpp server slot to answer it (`local_llm.slot_affinity`)."""
        args: RequestArgs = {}
        body = _llama_body(grammar=grammar, slot=slot)
        if body:
            args["extra_body"] = body
        if grammar is None and json_schema is not None:
            args["response_format"] = response_format(json_schema, schema_name)
        constrained = json_schema is not None or grammar is not None
        args = {**args, **_chat_args(config, constrained=constrained)}
        response: object = await self.litellm.acompletion(
            messages=[dict(m) for m in messages], **args
        )
        text, finish_reason = answer_of(response)
        return Completion(text=text, finish_reason=finish_reason, **usage_of(response))

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        config: ModelConfig,
        extra_body: dict[str, object] | None = None,
        slot: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Text pieces, then one `Completion` (empty text) with the server's usage and finish
        reason when the stream ended normally. `extra_body` goes to the server as is (the
        local backend's grammar and sampling for a `ProseShape`)."""
        args = _chat_args(config)
        if body := {**_llama_body(slot=slot), **(extra_body or {})}:
            args["extra_body"] = body
        if _reports_stream_usage(config):
            args["stream_options"] = {"include_usage": True}
        response: object = await self.litellm.acompletion(
            messages=[dict(m) for m in messages], stream=True, **args
        )
        async for piece in stream_text(response):
            yield piece

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        if config.model.startswith("ollama_chat/"):  # litellm embeds through ollama/ only
            config = config.replace(model="ollama/" + config.model.removeprefix("ollama_chat/"))
        response: object = await self.litellm.aembedding(
            input=list(texts), **_common(config), **_ollama_args(config)
        )
        return vectors_of(response)


async def stream_text(
    response: object, finished: Callable[[object, str | None], bool] | None = None
) -> AsyncIterator[str | Completion]:
    """The text pieces of a litellm stream, then one `Completion` (empty text) with the
    server's usage and finish reason; `StreamCutError` when it ends without the server's
    finish (`finished(response, last finish reason)`; a dropped connection looks like a short
    answer otherwise)."""
    if not isinstance(response, AsyncIterable):
        raise TypeError(f"a stream is async-iterable, got {type(response).__name__}")
    received: list[str] = []
    finish: str | None = None
    usage: Usage | None = None
    async for chunk in response:
        if field(chunk, "usage") is not None:
            usage = usage_of(chunk)
        piece = piece_of(chunk)
        if piece is None:
            continue
        text, finish_reason = piece
        if text:
            received.append(text)
            yield text
        finish = finish_reason or finish
    if not (finished or _server_finished)(response, finish):
        raise StreamCutError(
            "the stream ended without the server's finish_reason", text="".join(received)
        )
    if usage is None:
        yield Completion(text="", finish_reason=finish)
    else:
        yield Completion(text="", finish_reason=finish, **usage)


def _server_finished(response: object, last_finish: str | None) -> bool:
    """Whether the server itself ended the answer. litellm's stream wrapper adds a finish
    reason of its own ("stop") when the server sent none (a connection closed mid-answer),
    so the reason the server really sent is read from the wrapper when it keeps one."""
    if hasattr(response, "received_finish_reason"):
        return bool(
            response.received_finish_reason or getattr(response, "intermittent_finish_reason", None)
        )
    return last_finish is not None
