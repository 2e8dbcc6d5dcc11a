"""Backend of a role whose requests are spread over a pool of servers by litellm's Router.

One Router per pool (a role's deployments with its context, stop sequences and policy; chats
and embeddings apart), all sharing one `SlotGate`: a server's slots are counted once however
many roles use it. Importing litellm and building a Router is start-up work: `warm()` does the
import in the client's background thread, `prepare()` builds the Router off the event loop,
both before a call's clock starts. `admit()` waits for a free slot of the pool before the
clock starts too: waiting for a busy server is not the model's time.

Every answer says which deployment gave it (`Completion.deployment`, in the call's trace);
an error says which failed last (`LLMError.deployment`); when every deployment is cooling
down the call fails with `PoolUnavailableError`, naming them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import AsyncIterator, Sequence
from contextvars import Token
from typing import TYPE_CHECKING, TypedDict, cast

from local_llm.backends.base import Completion, JsonSchema, Message
from local_llm.backends.responses import answer_of, int_or_none, vectors_of
from local_llm.config import ModelConfig
from local_llm.deployments import capacity
from local_llm.errors import LLMError, PoolUnavailableError
from local_llm.retry import classify
from local_llm.slots import HOLDER, Holder, Slots

if TYPE_CHECKING:
    from litellm import Router
    from litellm.types.llms.openai import AllMessageValues

    from local_llm.backends.litellm_backend import ResponseFormat
    from local_llm.backends.pool_router import SlotGate


class PoolRequestArgs(TypedDict, total=False):
    """Each request's own arguments to the Router (its deployments hold the rest)."""

    temperature: float
    max_tokens: int
    metadata: dict[str, str]
    response_format: ResponseFormat
    stop: list[str] | None


class Vectors(list[list[float]]):
    """Embeddings, and the deployment that made them (for the call's trace)."""

    def __init__(self, rows: list[list[float]], deployment: str) -> None:
        super().__init__(rows)
        self.deployment = deployment


class PoolBackend:
    """Chat, streaming and embeddings over a pool of deployments."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._routers: dict[tuple[ModelConfig, bool], Router] = {}
        self._gate: SlotGate | None = None
        self.slots = Slots()
        """Each server's slots (taken by the gate) and each pool's room (taken by `admit`)."""

    def warm(self) -> None:
        """Import litellm and its Router now (blocking; the client runs it in a thread)."""
        import local_llm.backends.pool_router  # noqa: F401 - the import is the work

    async def prepare(self, config: ModelConfig, kind: str = "structured") -> None:
        """Build the pool's Router off the event loop, before the call's clock starts."""
        if (pool_key(config), kind == "embed") not in self._routers:
            await asyncio.to_thread(self.router, config, kind == "embed")

    def router(self, config: ModelConfig, embedding: bool = False) -> Router:
        """The Router of a pool (built on first use)."""
        from local_llm.backends.pool_router import SlotGate, build_router

        key = (pool_key(config), embedding)
        with self._lock:
            if self._gate is None:
                self._gate = SlotGate(self.slots)
            if key not in self._routers:
                self._routers[key] = build_router(config, self._gate, embedding)
            return self._routers[key]

    @contextlib.asynccontextmanager
    async def admit(
        self, config: ModelConfig, kind: str = "structured", session: str = ""
    ) -> AsyncIterator[None]:
        """Wait for room in the pool (fewer calls under way than its first-order slots),
        then hold it for one call; the call's slot on a server is taken by the gate."""
        room = ("admit", pool_key(config))
        self.slots.add(room, capacity(config.deployments))
        await self.slots.wait_for(lambda: self.slots.take(room))
        holder = Holder(session=session)
        token = HOLDER.set(holder)
        try:
            yield
        finally:
            _reset(token)
            self.slots.give_back([*holder.held, room])
            holder.held.clear()

    def release(self) -> None:
        """Take the gate out of litellm's callbacks (the client is closing)."""
        if self._gate is not None:
            from local_llm.backends.pool_router import remove_gate

            remove_gate(self._gate)

    # -- requests --------------------------------------------------------------------------

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None,
        config: ModelConfig,
        schema_name: str = "answer",
    ) -> Completion:
        from local_llm.backends.litellm_backend import response_format
        from local_llm.backends.pool_router import GROUP

        router = self.router(config)
        args = self._request_args(config)
        if json_schema is not None:
            args["response_format"] = response_format(json_schema, schema_name)
            args["stop"] = None  # over the deployment's markers: the grammar ends the answer
        async with self._call(config) as holder:
            response: object = await router.acompletion(
                model=GROUP, messages=_wire(messages), **args
            )
            text, finish_reason = answer_of(response)
            usage = getattr(response, "usage", None)
            return Completion(
                text=text,
                prompt_tokens=int_or_none(getattr(usage, "prompt_tokens", None)),
                completion_tokens=int_or_none(getattr(usage, "completion_tokens", None)),
                finish_reason=finish_reason,
                deployment=holder.last,
            )

    async def stream(
        self, messages: Sequence[Message], *, config: ModelConfig
    ) -> AsyncIterator[str | Completion]:
        """First a `Completion` naming the deployment that answers, then the text pieces."""
        from local_llm.backends.litellm_backend import stream_text
        from local_llm.backends.pool_router import GROUP

        router = self.router(config)
        async with self._call(config) as holder:
            response: object = await router.acompletion(
                model=GROUP,
                messages=_wire(messages),
                stream=True,
                **self._request_args(config),
            )
            yield Completion(text="", deployment=holder.last)
            async for piece in stream_text(response, _server_finished):
                yield piece

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        from local_llm.backends.pool_router import GROUP

        router = self.router(config, embedding=True)
        async with self._call(config, embedding=True) as holder:
            response: object = await router.aembedding(model=GROUP, input=list(texts))
        return Vectors(vectors_of(response), holder.last)

    # -- internals ------------------------------------------------------------------------

    @staticmethod
    def _request_args(config: ModelConfig) -> PoolRequestArgs:
        args: PoolRequestArgs = {"temperature": config.temperature, "max_tokens": config.max_tokens}
        holder = HOLDER.get()
        if holder is not None and holder.session:
            args["metadata"] = {"session_id": holder.session}
        return args

    @contextlib.asynccontextmanager
    async def _call(self, config: ModelConfig, embedding: bool = False) -> AsyncIterator[Holder]:
        """One request: the call's holder (made here when `admit` was not used), its slot
        given back at the end, errors typed and naming the deployment that failed."""
        holder = HOLDER.get()
        token = None
        if holder is None:
            holder = Holder()
            token = HOLDER.set(holder)
        try:
            yield holder
        except Exception as exc:  # noqa: BLE001 - typed below
            raise self._typed(exc, config, embedding, holder) from exc
        finally:
            self.slots.give_back(holder.held)
            holder.held.clear()
            if token is not None:
                _reset(token)

    def _typed(
        self, exc: Exception, config: ModelConfig, embedding: bool, holder: Holder
    ) -> BaseException:
        from local_llm.backends.pool_router import cooling, no_deployment_available

        if no_deployment_available(exc):
            names = cooling(self._gate, exc) or [d.label for d in config.deployments]
            error: BaseException = PoolUnavailableError(
                f"no server of the pool can take the request: {', '.join(names)} "
                f"failed and cool down for up to {config.pool.cooldown_s:g} s "
                "(models.pool.cooldown_s)",
                cooling=names,
            )
        else:
            error = classify(exc)
        if isinstance(error, LLMError) and holder.last:
            error.deployment = holder.last
        return error


def _wire(messages: Sequence[Message]) -> list[AllMessageValues]:
    """The messages as the Router's signature names them (litellm's message TypedDicts): a
    chat message, `role` and `content`, is what noema sends, passed on as it is."""
    return cast("list[AllMessageValues]", [dict(m) for m in messages])


def pool_key(config: ModelConfig) -> ModelConfig:
    """What makes two roles' pools one Router: the config without each request's own
    arguments (sampling, completion limit, re-asks); the server's context stays."""
    return dataclasses.replace(
        config,
        temperature=0.0,
        max_tokens=1,
        retries=0,
        transient_retries=0,
        backoff_s=0.0,
        num_ctx=config.context_window,
        api_key=None,
        api_key_env="",
    )


def _server_finished(response: object, last_finish: str | None) -> bool:
    """Whether the server itself ended the streamed answer. The Router's stream wrapper adds
    a finish reason of its own when the server sent none (a cut connection) and keeps no
    record of it, but its `chunks` are the server's own: one of them must carry a finish."""
    chunks = getattr(response, "chunks", None)
    if isinstance(chunks, list):
        return any(
            getattr(choice, "finish_reason", None)
            for chunk in chunks
            for choice in (getattr(chunk, "choices", None) or [])
        )
    return last_finish is not None


def _reset(token: Token[Holder | None]) -> None:
    """Undo a HOLDER.set; a generator closed from another task (by the loop's finalizer)
    cannot, and need not: its slots were given back by the caller's `finally`."""
    with contextlib.suppress(ValueError):
        HOLDER.reset(token)
