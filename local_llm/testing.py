"""A scripted backend for unit tests: canned answers, token accounting, a log of every call.

    backend = ScriptedBackend([{"ids": ["q1"]}, Answer(ids=["q2"]), ConnectionError("down")])
    client = LLMClient({"default": ModelConfig(model="scripted")}, backend=backend)
    # or: client = scripted_client([...]); client.backend() is the ScriptedBackend

A response is a str (sent as is), a dict / list (sent as JSON), a pydantic model (its JSON),
a `Completion` (to script usage or `finish_reason="length"`; streamed with
`finish_reason=None` it ends without the server's finish, as a connection cut mid-answer does),
or an exception (instance or class) to raise. `prepare_s` makes the first request of each kind
wait that long in `prepare()` first, like a backend importing its library or starting a server.

Instead of a list, `answer=` takes a callable `(call: ScriptedCall) -> response`: the call says
which one it is (`call.node`, `call.flow`, `call.role`, `call.schema_name`, as the client
reports them: local_llm.calls), so a script answers the planner as the planner, never by
guessing from the prompt's wording. (A callable `(messages, json_schema) -> response` passed
as `responses` still works.) Embeddings are deterministic feature-hashed bags of words, so equal
texts get equal vectors and texts sharing words are close in cosine similarity.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from pydantic import BaseModel

from local_llm.backends.base import Completion, JsonSchema, Message, PullProgress
from local_llm.calls import current_call
from local_llm.client import LLMClient
from local_llm.config import ModelConfig
from local_llm.errors import StreamCutError
from local_llm.tokens import count_messages, count_text
from local_llm.trace import CallTrace

Response = (
    str
    | dict[str, object]
    | list[object]
    | BaseModel
    | Completion
    | BaseException
    | type[BaseException]
)
"""An answer as scripted: text, JSON data (sent as its JSON text), a model, a completion, or
an error to raise."""
Responder = Callable[[list[dict[str, object]], JsonSchema | None], Response]
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class ScriptedCall:
    """One request the backend received."""

    kind: str
    """`complete`, `stream` or `embed`."""
    messages: list[dict[str, object]] = field(default_factory=list)
    json_schema: JsonSchema | None = None
    config: ModelConfig | None = None
    texts: list[str] = field(default_factory=list)
    completion: Completion | None = None
    """What `complete` answered (with its token accounting)."""
    schema_name: str = ""
    """The answer's schema name (`complete` only): the pydantic model's name, by default."""
    grammar: str | None = None
    """The GBNF grammar sent in place of the schema (the local backend's requests)."""
    slot: int | None = None
    """The server slot asked for (the local backend's requests with several slots)."""
    extra_body: dict[str, object] | None = None
    """What a stream sent the server besides the chat (the local backend's shaped streams)."""
    flow: str = ""
    node: str = ""
    """The graph node that asked (empty outside a flow)."""
    role: str = ""

    def __post_init__(self) -> None:
        identity = current_call()  # what the client says this call is
        if identity is not None:
            self.flow = self.flow or identity.flow
            self.node = self.node or identity.node
            self.role = self.role or identity.role

    @property
    def last_user(self) -> str:
        """Content of the last user message (handy in assertions)."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content", "")) if users else ""


CallResponder = Callable[[ScriptedCall], Response]
"""Answers a call knowing which one it is (its node, flow, role, schema name)."""


class ScriptedOptions(TypedDict, total=False):
    """`ScriptedBackend`'s options, as `scripted_client` passes them on."""

    latency_s: float
    stream_chunk: int
    embedding_dim: int
    models: Sequence[str]
    prepare_s: float
    answer: CallResponder | None


class ScriptedBackend:
    """A `Backend` that answers from a script. Raises AssertionError when the script runs out."""

    serves_any_model = True
    """Whatever model a role names, this backend answers (health checks need no server)."""

    def __init__(
        self,
        responses: Iterable[Response] | Responder = (),
        *,
        latency_s: float = 0.0,
        stream_chunk: int = 8,
        embedding_dim: int = 64,
        models: Sequence[str] = ("scripted",),
        prepare_s: float = 0.0,
        answer: CallResponder | None = None,
    ):
        self.answer = answer
        """Answers calls knowing which they are (see the module docstring); a test may swap
        it mid-run."""
        self._responder = responses if callable(responses) else None
        self._queue: list[Response] = [] if callable(responses) else list(responses)
        self.latency_s = latency_s
        self.stream_chunk = stream_chunk
        self.embedding_dim = embedding_dim
        self.models = list(models)
        self.calls: list[ScriptedCall] = []
        self.prepare_s = prepare_s
        self.prepared: list[str] = []
        """The kinds of call `prepare()` has readied (each once)."""

    # -- script control ---------------------------------------------------------------

    def add(self, *responses: Response) -> ScriptedBackend:
        """Append responses to the script."""
        self._queue.extend(responses)
        return self

    @property
    def remaining(self) -> int:
        """Responses not consumed yet (0 for a callable script)."""
        return len(self._queue)

    def calls_of(self, kind: str) -> list[ScriptedCall]:
        return [c for c in self.calls if c.kind == kind]

    @property
    def usage(self) -> dict[str, int]:
        """Total prompt and completion tokens of the completions answered so far."""
        done = [c.completion for c in self.calls if c.completion is not None]
        return {
            "prompt_tokens": sum(c.prompt_tokens or 0 for c in done),
            "completion_tokens": sum(c.completion_tokens or 0 for c in done),
        }

    # -- Backend protocol ---------------------------------------------------------------

    async def prepare(self, config: ModelConfig, kind: str = "structured") -> None:
        """Start-up work before a request (the client runs it outside the call's timeout)."""
        if kind not in self.prepared:
            await asyncio.sleep(self.prepare_s)
            self.prepared.append(kind)

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
        msgs = [dict(m) for m in messages]
        call = ScriptedCall(
            "complete",
            msgs,
            json_schema,
            config,
            schema_name=schema_name,
            grammar=grammar,
            slot=slot,
        )
        self.calls.append(call)
        await self._wait()
        response = self._next(call)
        if not isinstance(response, Completion):
            text = to_text(response)
            response = Completion(text, count_messages(msgs), count_text(text), "stop")
        call.completion = response
        return response

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        config: ModelConfig,
        extra_body: dict[str, object] | None = None,
        slot: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """The text in pieces, then its usage as a server reports it (a `Completion` with
        empty text, the scripted `finish_reason`: `length` scripts an answer cut short)."""
        msgs = [dict(m) for m in messages]
        call = ScriptedCall("stream", msgs, None, config, extra_body=extra_body, slot=slot)
        self.calls.append(call)
        await self._wait()
        response = self._next(call)
        text = response.text if isinstance(response, Completion) else to_text(response)
        for start in range(0, len(text), max(1, self.stream_chunk)):
            yield text[start : start + self.stream_chunk]
            await asyncio.sleep(0)
        finish = response.finish_reason if isinstance(response, Completion) else "stop"
        if finish is None:
            raise StreamCutError(
                "scripted: the stream ended without the server's finish", text=text
            )
        yield Completion("", count_messages(msgs), count_text(text), finish)

    async def embed(self, texts: Sequence[str], *, config: ModelConfig) -> list[list[float]]:
        self.calls.append(ScriptedCall("embed", config=config, texts=list(texts)))
        await self._wait()
        return [hashed_embedding(t, self.embedding_dim) for t in texts]

    async def list_models(self, config: ModelConfig | None = None) -> list[str]:
        return list(self.models)

    async def pull(
        self, name: str, config: ModelConfig | None = None
    ) -> AsyncIterator[PullProgress]:
        for done in (0, 50, 100):
            yield PullProgress(
                status="pulling" if done < 100 else "success", completed=done, total=100
            )
        self.models.append(name)

    # -- internals ----------------------------------------------------------------------

    async def _wait(self) -> None:
        await asyncio.sleep(self.latency_s)

    def _next(self, call: ScriptedCall) -> Response:
        messages = call.messages
        if self.answer is not None:
            response = self.answer(call)
        elif self._responder is not None:
            response = self._responder(messages, call.json_schema)
        elif self._queue:
            response = self._queue.pop(0)
        else:
            raise AssertionError(
                f"ScriptedBackend ran out of responses after {len(self.calls) - 1} calls; "
                f"last prompt: {messages[-1:]!r}"
            )
        if isinstance(response, BaseException) or (
            isinstance(response, type) and issubclass(response, BaseException)
        ):
            raise response
        return response


def to_text(response: Response) -> str:
    """The wire text of a scripted response."""
    if isinstance(response, str):
        return response
    if isinstance(response, BaseModel):
        return response.model_dump_json()
    if isinstance(response, Completion):
        return response.text
    return json.dumps(response, ensure_ascii=False)


def hashed_embedding(text: str, dim: int = 64) -> list[float]:
    """A unit vector from hashing the lower-cased words of `text` into `dim` buckets."""
    vector = [0.0] * dim
    for word in _WORD.findall(text.lower()) or [text]:
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        vector[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def scripted_client(
    responses: Iterable[Response] | Responder = (),
    *,
    trace_sink: Callable[[CallTrace], None] | None = None,
    roles: Sequence[str] = ("default", "judge", "judge_secondary", "embedding"),
    config: ModelConfig | None = None,
    call_context: Callable[[], Mapping[str, str]] | None = None,
    **backend_options: Unpack[ScriptedOptions],
) -> LLMClient:
    """An LLMClient whose every role answers from one ScriptedBackend (`client.backend()`);
    `call_context` says which flow and node call (core's `langgraph_call_context`)."""
    base = config or ModelConfig(model="scripted", retries=2, transient_retries=2, backoff_s=0.0)
    configs: Mapping[str, ModelConfig] = {role: base for role in roles}
    backend = ScriptedBackend(responses, **backend_options)
    return LLMClient(configs, trace_sink=trace_sink, backend=backend, call_context=call_context)
