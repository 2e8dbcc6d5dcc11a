"""stream() and embed() through the client, with the scripted backend."""

from __future__ import annotations

import asyncio
import math

import pytest

import local_llm.retry as retry
from local_llm import CallTrace, LLMClient, ModelConfig
from local_llm.testing import ScriptedBackend, hashed_embedding


def _cosine(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch):
    async def instant(delay):
        return None

    monkeypatch.setattr(retry, "sleep", instant)


async def test_stream_yields_pieces_and_traces_once():
    traces: list[CallTrace] = []
    backend = ScriptedBackend(["Hello there, learner."], stream_chunk=5)
    client = LLMClient(
        {"default": ModelConfig(model="m")}, backend=backend, trace_sink=traces.append
    )
    pieces = [p async for p in client.stream([{"role": "user", "content": "hi"}], node="tutor")]
    assert pieces == ["Hello", " ther", "e, le", "arner", "."]
    (trace,) = traces
    assert (trace.kind, trace.outcome, trace.node) == ("stream", "ok", "tutor")
    assert trace.completion_tokens > 0 and trace.prompt_tokens > 0


async def test_stream_retries_a_failure_before_the_first_piece():
    backend = ScriptedBackend([ConnectionResetError("reset"), "after retry"])
    client = LLMClient({"default": ModelConfig(model="m", backoff_s=0)}, backend=backend)
    assert "".join([p async for p in client.stream([{"role": "user", "content": "x"}])]) == (
        "after retry"
    )
    assert len(backend.calls_of("stream")) == 2


async def test_stream_error_is_traced():
    traces: list[CallTrace] = []
    backend = ScriptedBackend([ValueError("boom")])
    client = LLMClient(
        {"default": ModelConfig(model="m")}, backend=backend, trace_sink=traces.append
    )
    with pytest.raises(ValueError):
        async for _ in client.stream([{"role": "user", "content": "x"}]):
            pass
    assert [t.outcome for t in traces] == ["error"]


async def test_embed_batches_and_keeps_order():
    traces: list[CallTrace] = []
    config = ModelConfig(model="e", embed_batch_size=2)
    backend = ScriptedBackend(embedding_dim=32)
    client = LLMClient({"default": config}, backend=backend, trace_sink=traces.append)
    texts = ["alpha beta", "gamma", "alpha beta", "delta epsilon", "zeta"]
    vectors = await client.embed(texts)
    assert len(vectors) == 5 and all(len(v) == 32 for v in vectors)
    assert vectors[0] == vectors[2] and vectors[0] != vectors[1]
    assert [c.texts for c in backend.calls_of("embed")] == [texts[0:2], texts[2:4], texts[4:]]
    assert [t.kind for t in traces] == ["embed"] * 3
    assert await client.embed([]) == []


def test_hashed_embeddings_are_unit_vectors_and_similar_for_shared_words():
    a = hashed_embedding("spaced repetition improves memory")
    b = hashed_embedding("Spaced repetition helps memory")
    c = hashed_embedding("photosynthesis in plants")
    assert math.isclose(_cosine(a, a), 1.0, rel_tol=1e-9)
    assert _cosine(a, b) > _cosine(a, c)


async def test_scripted_pull_and_list_models():
    backend = ScriptedBackend(models=["llama3.2"])
    steps = [step async for step in backend.pull("qwen2.5")]
    assert steps[-1].status == "success" and steps[-1].fraction == 1.0
    assert await backend.list_models() == ["llama3.2", "qwen2.5"]


async def test_client_lists_and_pulls_through_backends_that_can():
    backend = ScriptedBackend(models=["llama3.2"])
    client = LLMClient({"default": ModelConfig(model="m")}, backend=backend)
    assert await client.list_models() == ["llama3.2"]
    steps = [s async for s in client.pull("phi4")]
    assert steps[-1].status == "success" and await client.list_models() == ["llama3.2", "phi4"]


async def test_listing_models_is_an_llm_error_where_unsupported():
    from local_llm import LLMError
    from local_llm.backends.litellm_backend import LiteLLMBackend

    client = LLMClient({"default": ModelConfig(model="m")}, backend=LiteLLMBackend())
    with pytest.raises(LLMError, match="cannot list"):
        await client.list_models()


async def test_round_trips_report_latency_and_dimension():
    from local_llm.probe import embedding_round_trip, structured_round_trip
    from local_llm.testing import scripted_client

    client = scripted_client([{"status": "ok"}], embedding_dim=24)
    assert await structured_round_trip(client) >= 0
    assert await embedding_round_trip(client) == 24
    bad = scripted_client([{"status": "nope"}] * 3)
    with pytest.raises(Exception, match="no valid answer"):
        await structured_round_trip(bad)


async def test_a_stalled_stream_is_an_error_not_a_hang():
    from local_llm import TransientModelError

    class Stalling(ScriptedBackend):
        async def stream(self, messages, *, config):
            yield "first"
            await asyncio.sleep(30)
            yield "never"

    traces: list[CallTrace] = []
    client = LLMClient(
        {"default": ModelConfig(model="m", timeout_s=0.2)},
        backend=Stalling(),
        trace_sink=traces.append,
    )
    pieces = []
    with pytest.raises(TransientModelError, match="stalled"):
        async for piece in client.stream([{"role": "user", "content": "x"}]):
            pieces.append(piece)
    assert pieces == ["first"]
    assert traces[0].outcome == "error"


async def test_closing_a_stream_early_is_traced_as_ok():
    traces: list[CallTrace] = []
    backend = ScriptedBackend(["abcdefghijklmnop"], stream_chunk=2)
    client = LLMClient(
        {"default": ModelConfig(model="m")}, backend=backend, trace_sink=traces.append
    )
    stream = client.stream([{"role": "user", "content": "x"}])
    assert await anext(stream) == "ab"
    await stream.aclose()
    assert traces[0].outcome == "ok" and "closed early" in traces[0].detail
