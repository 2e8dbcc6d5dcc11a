"""The one model client: structured answers, streaming text, embeddings, all traced.

Roles (`default`, `judge`, `embedding`, ...) map to `ModelConfig`s; a role that is not
configured falls back to `default`. The backend is chosen per role from its provider unless
one backend is injected for all roles (tests inject `local_llm.testing.ScriptedBackend`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel

from local_llm.activity import ActivitySink, CallWatch
from local_llm.answers import InvalidAnswer, parse_answer, reask_messages
from local_llm.backends import Backend, backend_for
from local_llm.backends.base import Completion, Message, PullProgress
from local_llm.calls import CallIdentity, making
from local_llm.config import ModelConfig
from local_llm.errors import (
    ContextBudgetError,
    LLMError,
    ModelTimeoutError,
    StructuredOutputError,
)
from local_llm.grammar import wire_schema
from local_llm.prose import ProseShape
from local_llm.retry import with_transient_retry
from local_llm.schema import JsonSchema, default_schema, schema_name
from local_llm.streaming import next_piece
from local_llm.tokens import BYTES_PER_TOKEN, MESSAGE_OVERHEAD, count_messages, count_text
from local_llm.trace import CallTrace, Kind, Outcome, TraceSink, emit
from local_llm.turn_markers import TurnMarkerCutter

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
CallContext = Callable[[], Mapping[str, str]]
log = logging.getLogger(__name__)
WARM_JOIN_S = 120.0
"""How long an exiting process waits for a backend import still under way."""


@dataclass
class _Call:
    """Who is calling (for traces and budget errors) and with which config."""

    role: str
    config: ModelConfig
    kind: Kind
    flow: str
    node: str
    run_id: str
    sink: TraceSink | None
    activity: ActivitySink | None = None
    answer_bound: int | None = None
    """Structured calls: tokens of the longest answer the schema allows (None: unbounded)."""

    def watch(self, prompt: int, attempt: int = 1, items: int = 0) -> CallWatch:
        """Report this request as live activity (a no-op without an activity sink)."""
        return CallWatch(
            self.activity,
            role=self.role,
            model=self.config.model,
            kind=self.kind,
            flow=self.flow,
            node=self.node,
            run_id=self.run_id,
            prompt_tokens=prompt,
            attempt=attempt,
            items=items,
        )

    def trace(
        self,
        outcome: Outcome,
        *,
        started: float,
        prompt: int,
        completion: int = 0,
        detail: str = "",
        attempt: int = 1,
        ended: float | None = None,
        deployment: str = "",
        usage: Completion | None = None,
    ) -> None:
        """One trace; `usage` is the server's report (cache, finish reason, its own time)."""
        emit(
            self.sink,
            CallTrace(
                flow=self.flow,
                node=self.node,
                role=self.role,
                model=self.config.model,
                kind=self.kind,
                prompt_tokens=prompt,
                completion_tokens=completion,
                latency_ms=((ended or time.perf_counter()) - started) * 1000,
                outcome=outcome,
                detail=detail[:500],
                run_id=self.run_id,
                attempt=attempt,
                deployment=deployment,
                cached_tokens=usage.cached_tokens if usage else None,
                finish_reason=(usage.finish_reason or "") if usage else "",
                max_tokens=self.config.max_tokens if self.kind != "embed" else 0,
                prompt_ms=usage.prompt_ms if usage else None,
                generation_ms=usage.generation_ms if usage else None,
                started=started,
                answer_bound=self.answer_bound,
            ),
        )


@dataclass
class _Answer:
    """A completion with when its request started and the prompt tokens counted for it."""

    completion: Completion
    started: float
    counted: int
    ended: float = 0.0
    call: _Call | None = None
    """The call as sent (its config holds the `max_tokens` of this request)."""

    def trace(self, call: _Call, outcome: Outcome, detail: str, attempt: int) -> None:
        """Trace with the server's real usage when it reported one, else the local counts."""
        call = self.call or call
        done = self.completion
        prompt = done.prompt_tokens if done.prompt_tokens is not None else self.counted
        completion = (
            done.completion_tokens if done.completion_tokens is not None else count_text(done.text)
        )
        call.trace(
            outcome,
            started=self.started,
            prompt=prompt,
            completion=completion,
            detail=detail,
            attempt=attempt,
            ended=self.ended,
            usage=done,
            deployment=done.deployment,
        )


class LLMClient:
    """Structured output with re-asks, streaming and embeddings over per-role models."""

    def __init__(
        self,
        roles: Mapping[str, ModelConfig],
        *,
        trace_sink: TraceSink | None = None,
        backend: Backend | None = None,
        call_context: CallContext | None = None,
        backends: Mapping[str, Backend] | None = None,
        activity: ActivitySink | None = None,
    ):
        """`call_context()` may return flow/node/run_id for calls that do not pass them
        (core reads them from LangGraph's config); explicit arguments win. `backends` gives
        the backend of some providers (core passes the `local` one, which knows the data
        directory); the others are created on first use; `backend` serves every role.
        `activity` is told when each request starts, streams tokens and ends
        (`local_llm.activity`)."""
        if not roles:
            raise ValueError("LLMClient needs at least one role (e.g. 'default')")
        self._roles = dict(roles)
        self._backend = backend
        self._backends: dict[str, Backend] = dict(backends or {})
        self.trace_sink = trace_sink
        self.activity = activity
        self._call_context = call_context
        self.warming: threading.Thread | None = None
        """The thread `warm()` started (a front end can show it as start-up work)."""

    @property
    def roles(self) -> dict[str, ModelConfig]:
        return dict(self._roles)

    def set_roles(self, roles: Mapping[str, ModelConfig]) -> None:
        """Point the roles at other models (one chosen in the app); later calls use them."""
        if not roles:
            raise ValueError("LLMClient needs at least one role (e.g. 'default')")
        self._roles = dict(roles)

    def config(self, role: str = "default") -> ModelConfig:
        """The config of a role, falling back to `default`."""
        found = self._roles.get(role) or self._roles.get("default")
        if found is None:
            raise KeyError(f"no model configured for role {role!r} and no 'default' role")
        return found

    def backend(self, role: str = "default") -> Backend:
        """The backend serving a role (one per provider, one for every pool; created on
        first use)."""
        if self._backend is not None:
            return self._backend
        config = self.config(role)
        key = "pool" if config.is_pool else config.provider
        if key not in self._backends:
            self._backends[key] = backend_for(config)
        return self._backends[key]

    def warm(self) -> threading.Thread | None:
        """Import the configured backends' libraries (litellm: seconds) in a background thread,
        so no call pays for it inside its timeout. Returns the thread (None: nothing to do)."""
        if self._backend is not None:
            return None
        backends = [self.backend(role) for role in self._roles]
        warmers = [b.warm for b in dict.fromkeys(backends) if hasattr(b, "warm")]
        if not warmers:
            return None

        def run() -> None:
            for warm in warmers:
                try:
                    warm()
                except Exception:  # noqa: BLE001 - the first call reports the real problem
                    log.debug("warming a backend failed", exc_info=True)

        thread = threading.Thread(target=run, name="noema-warm-backends", daemon=True)
        thread.start()
        # A daemon thread still importing while the interpreter finalizes can abort the
        # process (SIGABRT, seen when a short command exited during litellm's import): the
        # exit waits for the import instead.
        atexit.register(thread.join, WARM_JOIN_S)
        self.warming = thread
        return thread

    async def prepare(self, role: str = "default", kind: Kind = "structured") -> None:
        """Do a role's start-up work now (import the backend, start the bundled model's
        server): what the first call would otherwise wait for before its own clock starts."""
        await self._ready(self._call(role, kind, "", ""))

    def close(self) -> None:
        """Release what the backends hold for this process (the local model's servers)."""
        for backend in {id(b): b for b in self._backends.values()}.values():
            release = getattr(backend, "release", None)
            if release is not None:
                release()

    def budget(self, role: str = "default") -> int:
        """The prompt token budget of a role."""
        return self.config(role).context_budget

    def count_tokens(self, messages: Sequence[Message], role: str = "default") -> int:
        """Prompt tokens as counted before sending (a conservative local estimate)."""
        return count_messages(messages)

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[M],
        *,
        role: str = "default",
        json_schema: JsonSchema | None = None,
        max_tokens: int | None = None,
        timeout_s: float | None = None,
        flow: str = "",
        node: str = "",
    ) -> M:
        """A validated instance of `schema`; invalid answers are re-asked with the error.

        `json_schema` (from `local_llm.schema.bounded_schema`) is sent to the model and the
        answer must satisfy it as well as the pydantic model; without it the model's own
        cleaned schema is sent and pydantic alone validates. What is sent is the schema as a
        grammar enforces it (`local_llm.grammar.grammar_schema`), fitted to the role's
        `max_tokens` (`fitted_schema`: bounds for what is unbounded, shorter strings and lists
        when the longest answer would not fit), and unless `max_tokens` is given, the call may
        write the longer of that longest answer and the role's `max_tokens` (within the
        context window).

        No stop sequences go with it (the backends leave them out of constrained requests):
        the grammar ends the answer when its JSON is complete.
        """
        call = self._call(
            role, "structured", flow, node, max_tokens=max_tokens, timeout_s=timeout_s
        )
        bounded = json_schema if json_schema is not None else default_schema(schema)
        sent = wire_schema(bounded, call.config.max_tokens)
        call.answer_bound, wire = sent.answer_bound, sent.schema
        bound = sent.bound if max_tokens is None else None
        # the bound counts the widest whitespace the grammar allows in every gap (the bundled
        # Gemma indents with runs of single-character tokens); never below the role's limit
        needed = None if bound is None else max(bound, call.config.max_tokens)
        base: list[Message] = [dict(m) for m in messages]
        prompt, raw, errors = base, "", []
        for attempt in range(1, call.config.retries + 2):
            answer = await self._complete(call, prompt, wire, schema_name(schema), attempt, needed)
            raw = answer.completion.text
            try:
                value = parse_answer(answer.completion, schema, json_schema)
            except InvalidAnswer as exc:
                errors.append(str(exc))
                answer.trace(call, "invalid", str(exc), attempt)
                prompt = reask_messages(base, raw, str(exc))
                continue
            answer.trace(call, "ok", "", attempt)
            return value
        error = StructuredOutputError(
            f"{schema.__name__}: no valid answer from {call.config.model} after "
            f"{len(errors)} attempts; last problem: {errors[-1]}",
            raw_text=raw,
            errors=errors,
            attempts=len(errors),
        )
        raise self._annotated(error, call)

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        role: str = "default",
        max_tokens: int | None = None,
        flow: str = "",
        node: str = "",
        shape: ProseShape | None = None,
    ) -> AsyncIterator[str]:
        """Text pieces as the model writes them. Opening the stream is retried when transient.

        With a `shape`, `max_tokens` defaults to one no answer of that shape reaches, and a
        backend that can hold the model to the shape (the local one: `stream_shaped`) does.

        The answer ends at the first chat-template turn marker (`turn_markers.TURN_MARKERS`):
        the text before it is yielded, the backend stream is closed, the trace notes the cut.
        A stream that ends without the server's finish (connection reset mid-answer) raises
        `StreamCutError` after the pieces that did arrive: it is never a complete answer.
        """
        if max_tokens is None and shape is not None:
            max_tokens = shape.max_tokens
        call = self._call(role, "stream", flow, node, max_tokens=max_tokens)
        prompt: list[Message] = [dict(m) for m in messages]
        counted = self._check_budget(call, prompt)
        await self._ready(call)
        async with (
            self._admitted(call),
            contextlib.aclosing(self._stream(call, prompt, counted, shape)) as pieces,  # type: ignore[type-var]
        ):
            async for text in pieces:
                yield text

    async def _stream(
        self, call: _Call, prompt: Sequence[Message], counted: int, shape: ProseShape | None
    ) -> AsyncIterator[str]:
        started, pieces, detail = time.perf_counter(), [], ""
        outcome: Outcome = "error"
        iterator: AsyncIterator[str | Completion] | None = None
        usage: Completion | None = None
        cutter = TurnMarkerCutter()
        watch, streamed_bytes = call.watch(counted), 0
        deployment = ""
        try:
            opened, piece = await self._request(call, partial(self._open, call, prompt, shape))
            iterator = opened
            while piece is not None:
                if isinstance(piece, Completion):  # the backend's report (usage, who answered)
                    usage, deployment = piece, piece.deployment or deployment
                elif text := cutter.feed(piece):
                    pieces.append(text)
                    streamed_bytes += len(text.encode("utf-8"))
                    watch.tokens(-(-streamed_bytes // BYTES_PER_TOKEN))  # count_text so far
                    yield text
                if cutter.marker is not None:
                    break
                piece = await self._next_piece(call, opened, pieces)
            if held := cutter.finish():
                pieces.append(held)
                yield held
            outcome, detail = "ok", cutter.note
        except GeneratorExit:
            outcome, detail = "ok", "closed early by the caller"
            raise
        except Exception as exc:
            detail = f"{type(exc).__name__}: {exc}"
            deployment = getattr(exc, "deployment", "") or deployment
            raise
        finally:
            if iterator is not None and hasattr(iterator, "aclose"):
                await iterator.aclose()
            counts = _stream_counts(usage, counted, "".join(pieces))
            watch.finished(outcome, counts["completion"])
            call.trace(
                outcome,
                started=started,
                detail=detail,
                usage=usage,
                deployment=deployment,
                **counts,
            )

    async def embed(
        self,
        texts: Sequence[str],
        *,
        role: str = "embedding",
        flow: str = "",
        node: str = "",
    ) -> list[list[float]]:
        """One vector per text, requested in batches of the role's `embed_batch_size`."""
        call = self._call(role, "embed", flow, node)
        items = list(texts)
        counts = [count_text(t) + MESSAGE_OVERHEAD for t in items]
        for count in counts:
            self._check_tokens(call, count)
        vectors: list[list[float]] = []
        size = call.config.embed_batch_size
        for start in range(0, len(items), size):
            batch, tokens = items[start : start + size], sum(counts[start : start + size])
            vectors.extend(await self._embed_batch(call, batch, tokens))
        return vectors

    async def _embed_batch(self, call: _Call, batch: list[str], tokens: int) -> list[list[float]]:
        await self._ready(call)
        watch = call.watch(tokens, items=len(batch))  # shown while it waits for its slot too
        try:
            async with self._admitted(call):
                started = time.perf_counter()
                try:
                    got = await self._request(
                        call, partial(self.backend(call.role).embed, batch, config=call.config)
                    )
                    if len(got) != len(batch):
                        raise LLMError(
                            f"embedding backend returned {len(got)} vectors for {len(batch)} texts"
                        )
                except Exception as exc:
                    watch.finished("error")
                    call.trace(
                        "error",
                        started=started,
                        prompt=tokens,
                        detail=f"{type(exc).__name__}: {exc}",
                        deployment=getattr(exc, "deployment", ""),
                    )
                    raise
        except BaseException:  # cancelled (waiting or answering): no trace, the call is over
            watch.finished("stopped")  # (a no-op after an error)
            raise
        watch.finished("ok")
        call.trace("ok", started=started, prompt=tokens, deployment=getattr(got, "deployment", ""))
        return got

    async def list_models(self, role: str = "default") -> list[str]:
        """Models installed on the role's server (Ollama backend; LLMError elsewhere)."""
        call = self._call(role, "embed", "", "")
        lister = getattr(self.backend(role), "list_models", None)
        if lister is None:
            raise LLMError(f"the {call.config.provider} backend cannot list installed models")
        return await self._request(call, partial(lister, call.config))

    async def pull(self, name: str, role: str = "default") -> AsyncIterator[PullProgress]:
        """Download a model on the role's server, yielding progress (Ollama backend)."""
        config = self.config(role)
        puller = getattr(self.backend(role), "pull", None)
        if puller is None:
            raise LLMError(f"the {config.provider} backend cannot pull models")
        async for step in puller(name, config):
            yield step

    # -- internals ------------------------------------------------------------------------

    def _call(self, role: str, kind: Kind, flow: str, node: str, **overrides: Any) -> _Call:
        context: Mapping[str, str] = {}
        if self._call_context is not None:
            try:
                context = self._call_context() or {}
            except Exception:  # noqa: BLE001 - outside a graph there is simply no context
                context = {}
        return _Call(
            role=role,
            config=self.config(role).replace(**overrides),
            kind=kind,
            flow=flow or context.get("flow", ""),
            node=node or context.get("node", ""),
            run_id=context.get("run_id", ""),
            sink=self.trace_sink,
            activity=self.activity,
        )

    def _check_budget(self, call: _Call, prompt: Sequence[Message]) -> int:
        tokens = count_messages(prompt)
        self._check_tokens(call, tokens)
        return tokens

    def _check_tokens(self, call: _Call, tokens: int) -> None:
        budget = call.config.context_budget
        if tokens > budget:
            error = ContextBudgetError(
                flow=call.flow, node=call.node, role=call.role, tokens=tokens, budget=budget
            )
            call.trace("budget", started=time.perf_counter(), prompt=tokens, detail=str(error))
            raise self._annotated(error, call)

    async def _request(self, call: _Call, request: Callable[[], Awaitable[T]]) -> T:
        """One backend request under the role's timeout, transient failures retried.

        The backend's `prepare()` (importing its library, starting the local model's server)
        runs before the timeout starts: it is start-up work, not the model's answer time."""
        config = call.config

        identity = CallIdentity(call.flow, call.node, call.role, call.kind, call.run_id)

        async def bounded() -> T:
            await self._prepare(call)
            try:
                async with asyncio.timeout(config.timeout_s):
                    with making(identity):
                        return await request()
            except TimeoutError as exc:
                raise ModelTimeoutError(
                    f"{config.model} gave no answer within {config.timeout_s:g} s "
                    "(models.timeout_s)"
                ) from exc

        try:
            return await with_transient_retry(
                bounded,
                retries=config.transient_retries,
                backoff_s=config.backoff_s,
                what=f"{call.kind} call to {config.model} ({call.role})",
            )
        except LLMError as exc:
            raise self._annotated(exc, call) from exc.__cause__

    async def _prepare(self, call: _Call) -> None:
        prepare = getattr(self.backend(call.role), "prepare", None)
        if prepare is not None:
            await prepare(call.config, call.kind)

    def _admitted(self, call: _Call) -> AbstractAsyncContextManager[None]:
        """Wait for room on the role's servers (a pool's free slot) before the call's clock
        and timeout start: queueing for a busy server is not the model's time."""
        admit = getattr(self.backend(call.role), "admit", None)
        if admit is None:
            return contextlib.nullcontext()
        admitted: AbstractAsyncContextManager[None] = admit(
            call.config, call.kind, session=call.run_id
        )
        return admitted

    async def _ready(self, call: _Call) -> None:
        """Start-up work before a call's clock starts (its latency in the trace is the
        model's); a retry after a transient failure prepares again inside `_request`."""
        try:
            await self._prepare(call)
        except LLMError as exc:
            raise self._annotated(exc, call) from exc.__cause__

    @staticmethod
    def _annotated(exc: LLMError, call: _Call) -> LLMError:
        """The error with the call's model config and role, for messages that name them."""
        if exc.config is None:
            exc.config, exc.role = call.config, call.role
        return exc

    async def _complete(
        self,
        call: _Call,
        prompt: Sequence[Message],
        wire: JsonSchema,
        name: str,
        attempt: int,
        needed: int | None = None,
    ) -> _Answer:
        counted = self._check_budget(call, prompt)
        if needed is not None:
            call = replace(
                call,
                config=call.config.replace(max_tokens=answer_limit(needed, call.config, counted)),
            )
        await self._ready(call)
        backend = self.backend(call.role)
        request = partial(
            backend.complete, prompt, json_schema=wire, config=call.config, schema_name=name
        )
        watch = call.watch(counted, attempt)  # shown while it waits for its slot too
        try:
            async with self._admitted(call):
                started = time.perf_counter()
                try:
                    completion = await self._request(call, request)
                except Exception as exc:
                    watch.finished("error")
                    call.trace(
                        "error",
                        started=started,
                        prompt=counted,
                        detail=f"{type(exc).__name__}: {exc}",
                        attempt=attempt,
                        deployment=getattr(exc, "deployment", ""),
                    )
                    raise
        except BaseException:  # cancelled (waiting or answering): no trace, the call is over
            watch.finished("stopped")  # (a no-op after an error)
            raise
        done = completion.completion_tokens
        watch.finished("ok", count_text(completion.text) if done is None else done)
        return _Answer(completion, started, counted, time.perf_counter(), call)

    def _next_piece(
        self, call: _Call, iterator: AsyncIterator[str | Completion], pieces: list[str]
    ) -> Awaitable[str | Completion | None]:
        return next_piece(call, iterator, pieces, self._annotated)

    async def _open(
        self, call: _Call, prompt: Sequence[Message], shape: ProseShape | None = None
    ) -> tuple[AsyncIterator[str | Completion], str | Completion | None]:
        backend = self.backend(call.role)
        shaped = getattr(backend, "stream_shaped", None) if shape is not None else None
        if shaped is not None:
            iterator = aiter(shaped(prompt, config=call.config, shape=shape))
        else:
            iterator = aiter(backend.stream(prompt, config=call.config))
        return iterator, await anext(iterator, None)


def _stream_counts(usage: Completion | None, counted: int, text: str) -> dict[str, int]:
    """Prompt and completion tokens of a stream: the server's when it reported them."""
    prompt = usage.prompt_tokens if usage and usage.prompt_tokens is not None else counted
    completion = usage.completion_tokens if usage and usage.completion_tokens is not None else None
    return {"prompt": prompt, "completion": count_text(text) if completion is None else completion}


def answer_limit(needed: int, config: ModelConfig, prompt_tokens: int) -> int:
    """`max_tokens` for an answer whose longest valid form takes `needed` tokens: all of
    them when the context window holds them after the prompt, else what the window holds."""
    room = config.context_window - prompt_tokens
    return max(1, min(needed, room))
