"""Live activity: the client reports each request as it starts, streams tokens and ends."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from local_llm import CallActivity, LLMClient, ModelConfig
from local_llm.testing import ScriptedBackend


class Reply(BaseModel):
    reply: str


def client_with(backend: ScriptedBackend, seen: list[CallActivity], **config) -> LLMClient:
    return LLMClient(
        {"default": ModelConfig(model="openai/tiny", **config)},
        backend=backend,
        activity=seen.append,
        call_context=lambda: {"flow": "extraction", "node": "extract_batch", "run_id": "run-1"},
    )


async def test_a_structured_call_starts_and_finishes_with_its_tokens():
    seen: list[CallActivity] = []
    client = client_with(ScriptedBackend([{"reply": "hola, qué tal"}]), seen)
    await client.structured([{"role": "user", "content": "¿Hola? 👋"}], Reply)
    started, finished = seen
    assert started.phase == "started" and finished.phase == "finished"
    assert started.call_id == finished.call_id
    assert (started.flow, started.node, started.run_id) == ("extraction", "extract_batch", "run-1")
    assert (started.role, started.model, started.kind) == ("default", "openai/tiny", "structured")
    assert started.prompt_tokens > 0 and started.completion_tokens == 0
    assert finished.outcome == "ok" and finished.completion_tokens > 0
    assert finished.elapsed() >= 0


async def test_a_stream_reports_its_tokens_as_they_arrive():
    seen: list[CallActivity] = []
    backend = ScriptedBackend(["Una respuesta larga, en trozos."], stream_chunk=4)
    client = client_with(backend, seen)
    pieces = [p async for p in client.stream([{"role": "user", "content": "explica"}])]
    assert len(pieces) > 3
    phases = [a.phase for a in seen]
    assert phases[0] == "started" and phases[-1] == "finished"
    counts = [a.completion_tokens for a in seen if a.phase == "tokens"]
    assert len(counts) == len(pieces) and counts == sorted(counts) and counts[0] > 0
    assert seen[-1].completion_tokens >= counts[-1]


async def test_an_embedding_request_names_how_many_texts():
    seen: list[CallActivity] = []
    client = client_with(ScriptedBackend(), seen, embed_batch_size=2)
    await client.embed(["uno", "dos", "tres"], role="default")
    assert [(a.phase, a.kind, a.items) for a in seen] == [
        ("started", "embed", 2),
        ("finished", "embed", 2),
        ("started", "embed", 1),
        ("finished", "embed", 1),
    ]


async def test_a_failed_call_ends_as_an_error_and_a_cancelled_one_as_stopped():
    seen: list[CallActivity] = []
    client = client_with(ScriptedBackend([ValueError("bad")]), seen, transient_retries=0, retries=0)
    with pytest.raises(Exception, match="bad"):
        await client.structured([{"role": "user", "content": "x"}], Reply)
    assert [(a.phase, a.outcome) for a in seen] == [("started", ""), ("finished", "error")]

    seen.clear()
    slow = client_with(ScriptedBackend([{"reply": "late"}], latency_s=5.0), seen)
    task = asyncio.create_task(slow.structured([{"role": "user", "content": "x"}], Reply))
    while not seen:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(a.phase, a.outcome) for a in seen] == [("started", ""), ("finished", "stopped")]


async def test_a_failing_sink_never_fails_the_call():
    def broken(_activity: CallActivity) -> None:
        raise RuntimeError("the screen is gone")

    client = LLMClient(
        {"default": ModelConfig(model="m")},
        backend=ScriptedBackend([{"reply": "ok"}]),
        activity=broken,
    )
    assert (await client.structured([{"role": "user", "content": "x"}], Reply)).reply == "ok"
