"""Transient failures are retried with exponential backoff and jitter; others are not."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

import local_llm.retry as retry
from local_llm import CallTrace, LLMClient, LLMError, ModelConfig, ModelUnavailableError
from local_llm.errors import TransientModelError
from local_llm.testing import ScriptedBackend

MESSAGES = [{"role": "user", "content": "hello"}]


class Answer(BaseModel):
    text: str


class HTTPError(Exception):
    """Shaped like litellm / ollama / httpx errors: carries a status code."""

    def __init__(self, status_code: int):
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


class ConnectError(Exception):
    """Named like httpx.ConnectError."""


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []

    async def fake_sleep(delay: float) -> None:
        recorded.append(delay)

    monkeypatch.setattr(retry, "sleep", fake_sleep)
    return recorded


def _client(responses, *, transient_retries=3, backoff_s=1.0, timeout_s=120.0, traces=None):
    config = ModelConfig(
        model="m", transient_retries=transient_retries, backoff_s=backoff_s, timeout_s=timeout_s
    )
    backend = ScriptedBackend(responses)
    sink = traces.append if traces is not None else None
    return LLMClient({"default": config}, backend=backend, trace_sink=sink), backend


@pytest.mark.parametrize(
    "failure",
    [
        ConnectionRefusedError("refused"),
        TimeoutError(),
        HTTPError(503),
        HTTPError(429),
        ConnectError(),
    ],
)
async def test_transient_failures_are_retried_with_growing_backoff(sleeps, failure):
    client, backend = _client([failure, failure, {"text": "ok"}], backoff_s=1.0)
    assert (await client.structured(MESSAGES, Answer)).text == "ok"
    assert len(backend.calls) == 3
    assert len(sleeps) == 2
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0


async def test_retries_are_exhausted_into_a_transient_error(sleeps):
    traces: list[CallTrace] = []
    client, backend = _client([HTTPError(502)] * 3, transient_retries=2, traces=traces)
    with pytest.raises(TransientModelError) as caught:
        await client.structured(MESSAGES, Answer)
    assert caught.value.status_code == 502
    assert len(backend.calls) == 3 and len(sleeps) == 2
    assert [t.outcome for t in traces] == ["error"]
    assert "502" in traces[0].detail


async def test_value_error_is_not_retried(sleeps):
    client, backend = _client([ValueError("bad argument"), {"text": "never"}])
    with pytest.raises(ValueError, match="bad argument"):
        await client.structured(MESSAGES, Answer)
    assert len(backend.calls) == 1 and sleeps == []


@pytest.mark.parametrize("status", [400, 401, 422])
async def test_client_errors_are_not_retried(sleeps, status):
    client, backend = _client([HTTPError(status), {"text": "never"}])
    with pytest.raises(LLMError, match=str(status)) as caught:
        await client.structured(MESSAGES, Answer)
    assert not isinstance(caught.value, TransientModelError)
    assert len(backend.calls) == 1 and sleeps == []


async def test_missing_model_is_model_unavailable(sleeps):
    client, backend = _client([HTTPError(404)])
    with pytest.raises(ModelUnavailableError):
        await client.structured(MESSAGES, Answer)
    assert sleeps == []


async def test_a_hanging_request_times_out_and_is_retried(sleeps):
    client, backend = _client(
        [{"text": "late"}, {"text": "late"}], transient_retries=1, timeout_s=0.05
    )
    backend.latency_s = 5.0
    started = asyncio.get_running_loop().time()
    with pytest.raises(TransientModelError):
        await client.structured(MESSAGES, Answer)
    assert asyncio.get_running_loop().time() - started < 1.0
    assert len(backend.calls) == 2


def test_backoff_delay_is_exponential_with_jitter():
    delays = [retry.backoff_delay(n, 0.5) for n in range(4) for _ in range(50)]
    for n in range(4):
        chunk = delays[n * 50 : (n + 1) * 50]
        assert all(0.25 * 2**n <= d <= 0.5 * 2**n for d in chunk)
        assert len(set(chunk)) > 1  # jitter


def test_classify_reads_status_from_nested_response():
    class Response:
        status_code = 500

    class StatusError(Exception):
        response = Response()

    assert isinstance(retry.classify(StatusError()), TransientModelError)
    assert retry.classify(KeyError("x")).__class__ is KeyError


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("provider", ["litellm", "ollama"])
async def test_real_backends_map_a_refused_connection_to_transient(sleeps, provider):
    port = _closed_port()
    if provider == "litellm":
        config = ModelConfig(model="openai/x", base_url=f"http://127.0.0.1:{port}/v1")
    else:
        config = ModelConfig(provider="ollama", model="x", base_url=f"http://127.0.0.1:{port}")
    config = config.replace(transient_retries=2, backoff_s=0.01, timeout_s=20)
    client = LLMClient({"default": config})
    with pytest.raises(TransientModelError):
        await client.structured(MESSAGES, Answer)
    assert len(sleeps) == 2


async def test_the_retry_line_says_why_in_words_not_the_backends_raw_text(sleeps, caplog):
    """`noema evaluate` with Ollama down printed litellm's text on each retry line:
    `Cannot connect to host 127.0.0.1:9 ssl:<ssl.SSLContext object at 0x7f...>`."""
    port = _closed_port()
    config = ModelConfig(model="ollama_chat/x", base_url=f"http://127.0.0.1:{port}")
    client = LLMClient({"default": config.replace(transient_retries=1, timeout_s=20)})
    with caplog.at_level("WARNING", logger="local_llm.retry"), pytest.raises(LLMError):
        await client.structured(MESSAGES, Answer)
    lines = [r.getMessage() for r in caplog.records if r.name == "local_llm.retry"]
    assert len(lines) == 1
    assert "failed (the server does not answer); retry 1/1" in lines[0]
    assert "SSLContext" not in lines[0] and "litellm" not in lines[0]


async def test_start_up_work_is_outside_the_calls_timeout_and_its_latency():
    """Importing the backend (or starting the local server) takes longer than the call's
    timeout here; the call still succeeds and its trace counts only the model's time."""
    traces: list[CallTrace] = []
    config = ModelConfig(model="m", timeout_s=0.2, transient_retries=0)
    backend = ScriptedBackend([{"text": "ok"}], prepare_s=0.5)
    client = LLMClient({"default": config}, backend=backend, trace_sink=traces.append)
    assert (await client.structured(MESSAGES, Answer)).text == "ok"
    assert backend.prepared == ["structured"]
    assert traces[0].outcome == "ok" and traces[0].latency_ms < 200


async def test_a_cut_stream_raises_after_the_pieces_that_arrived():
    from local_llm import Completion
    from local_llm.errors import StreamCutError

    backend = ScriptedBackend([Completion("half a sente", finish_reason=None)], stream_chunk=4)
    client = LLMClient({"default": ModelConfig(model="m")}, backend=backend)
    got: list[str] = []
    with pytest.raises(StreamCutError) as caught:
        async for piece in client.stream(MESSAGES):
            got.append(piece)
    assert "".join(got) == caught.value.text == "half a sente"
