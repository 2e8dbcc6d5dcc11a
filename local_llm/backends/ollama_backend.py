"""Backend over the official Ollama client: JSON schema as `format`, `num_ctx` always set.

Ollama's default context (2048 or 4096 tokens, depending on the version) silently cuts longer
prompts, so every request sets `num_ctx = context_budget + max_tokens` explicitly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING

from local_llm.backends.base import Completion, JsonSchema, Message, PullProgress
from local_llm.config import ModelConfig
from local_llm.errors import StreamCutError

if TYPE_CHECKING:
    from ollama import AsyncClient

ClientFactory = Callable[[str | None, float], "AsyncClient"]
"""Makes the client of a host with a timeout (tests give one serving scripted answers)."""
_PREFIXES = ("ollama_chat/", "ollama/")


def ollama_model_name(model: str) -> str:
    """Accept litellm-style names (`ollama_chat/llama3.2`) as well as bare Ollama names."""
    for prefix in _PREFIXES:
        if model.startswith(prefix):
            return model[len(prefix) :]
    return model


def _default_factory(host: str | None, timeout_s: float) -> AsyncClient:
    import ollama

    # Ollama usually listens on plain http: no TLS context to build (the CA bundle's load
    # costs ~0.1-0.5 s of a short command such as `noema doctor`)
    plain = (host or "http://").startswith("http://")
    return ollama.AsyncClient(host=host, timeout=timeout_s, verify=not plain)


class OllamaBackend:
    """Chat, streaming, embeddings, model listing and pulling through `ollama.AsyncClient`."""

    def __init__(self, client_factory: ClientFactory | None = None):
        self._factory = client_factory or _default_factory
        self._clients: dict[tuple[str | None, float], AsyncClient] = {}

    def warm(self) -> None:
        """Import the ollama client (and httpx) now; the client runs this in the background."""
        if self._factory is _default_factory:
            import ollama  # noqa: F401

    def client(self, config: ModelConfig) -> AsyncClient:
        """One AsyncClient per (host, timeout), reused across calls."""
        key = (config.base_url, config.timeout_s)
        if key not in self._clients:
            self._clients[key] = self._factory(config.base_url, config.timeout_s)
        return self._clients[key]

    @staticmethod
    def options(config: ModelConfig, *, constrained: bool = False) -> dict[str, float | list[str]]:
        """Sampling options; num_ctx covers the whole prompt budget plus the answer, and the
        chat template's turn markers stop a free answer (a `constrained` one, under a JSON
        schema's grammar, ends with the grammar: a marker inside a string must not cut it)."""
        options: dict[str, float | list[str]] = {
            "num_ctx": config.context_window,
            "temperature": config.temperature,
            "num_predict": config.max_tokens,
        }
        if not constrained and (stop := config.stop_sequences()):
            options["stop"] = stop
        return options

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None,
        config: ModelConfig,
        schema_name: str = "answer",
    ) -> Completion:
        response = await self.client(config).chat(
            model=ollama_model_name(config.model),
            messages=[dict(m) for m in messages],
            format=json_schema,
            options=self.options(config, constrained=json_schema is not None),
            stream=False,
            keep_alive=config.keep_alive,
        )
        return Completion(
            text=response.message.content or "",
            prompt_tokens=response.prompt_eval_count,
            completion_tokens=response.eval_count,
            finish_reason="length" if response.done_reason == "length" else "stop",
        )

    async def stream(
        self, messages: Sequence[Message], *, config: ModelConfig
    ) -> AsyncIterator[str | Completion]:
        """Text pieces, then one `Completion` (empty text) with Ollama's counts."""
        parts = await self.client(config).chat(
            model=ollama_model_name(config.model),
            messages=[dict(m) for m in messages],
            options=self.options(config),
            stream=True,
            keep_alive=config.keep_alive,
        )
        received, last = [], None
        async for part in parts:
            if part.message.content:
                received.append(part.message.content)
                yield part.message.content
            if getattr(part, "done", False):
                last = part
        if last is None:
            raise StreamCutError(
                "the stream ended before Ollama's final message (done)", text="".join(received)
            )
        yield Completion(
            text="",
            prompt_tokens=getattr(last, "prompt_eval_count", None),
            completion_tokens=getattr(last, "eval_count", None),
            finish_reason="length" if getattr(last, "done_reason", None) == "length" else "stop",
        )

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        response = await self.client(config).embed(
            model=ollama_model_name(config.model),
            input=list(texts),
            options={"num_ctx": config.context_window},
            keep_alive=config.keep_alive,
        )
        return [list(vector) for vector in response.embeddings]

    async def list_models(self, config: ModelConfig) -> list[str]:
        """Names of the models installed on the Ollama server (`ollama list`)."""
        response = await self.client(config).list()
        return sorted(m.model for m in response.models if m.model)

    async def pull(self, name: str, config: ModelConfig) -> AsyncIterator[PullProgress]:
        """Download a model, yielding progress steps (status, completed and total bytes)."""
        async for step in await self.client(config).pull(ollama_model_name(name), stream=True):
            yield PullProgress(status=step.status or "", completed=step.completed, total=step.total)
