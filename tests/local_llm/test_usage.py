"""What a request cost reaches its trace: prompt tokens served from the server's cache, the
server's own time, the finish reason (an answer cut at the token limit), also for streams."""

from __future__ import annotations

from types import SimpleNamespace

from pydantic import BaseModel

from local_llm import CallTrace, Completion, LLMClient, ModelConfig
from local_llm.backends.litellm_backend import LiteLLMBackend
from local_llm.backends.ollama_backend import OllamaBackend
from local_llm.testing import scripted_client

MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hi"}]
LLAMA = ModelConfig(model="openai/gemma3-270m", base_url="http://127.0.0.1:9/v1", max_tokens=64)


class Label(BaseModel):
    label: str


def llama_usage(prompt: int, cached: int, completion: int) -> dict:
    """A llama.cpp server's usage and timings, as litellm hands them on."""
    return {
        "usage": SimpleNamespace(
            prompt_tokens=prompt,
            completion_tokens=completion,
            prompt_tokens_details=SimpleNamespace(cached_tokens=cached),
        ),
        "timings": {
            "cache_n": cached,
            "prompt_n": prompt - cached,
            "prompt_ms": 120.5,
            "predicted_n": completion,
            "predicted_ms": 830.25,
        },
    }


class FakeLiteLLM:
    def __init__(self, finish: str = "stop"):
        self.calls: list[dict] = []
        self.finish = finish

    async def acompletion(self, **kwargs):
        self.calls.append(kwargs)
        if kwargs.get("stream"):
            return self._chunks()
        message = SimpleNamespace(content='{"label": "b"}')
        choice = SimpleNamespace(message=message, finish_reason=self.finish)
        return SimpleNamespace(choices=[choice], **llama_usage(300, 256, 7))

    async def _chunks(self):
        for piece, finish in (("Hola", None), (" mundo", self.finish)):
            delta = SimpleNamespace(content=piece)
            yield SimpleNamespace(choices=[SimpleNamespace(delta=delta, finish_reason=finish)])
        yield SimpleNamespace(choices=[], **llama_usage(40, 32, 2))


def client_with(fake: FakeLiteLLM, config: ModelConfig = LLAMA) -> tuple[LLMClient, list]:
    backend = LiteLLMBackend()
    backend._litellm = fake
    traces: list[CallTrace] = []
    return LLMClient({"default": config}, backend=backend, trace_sink=traces.append), traces


async def test_a_structured_answer_traces_the_cache_and_the_server_time():
    fake = FakeLiteLLM()
    client, traces = client_with(fake)
    assert (await client.structured(MESSAGES, Label)).label == "b"
    (trace,) = traces
    assert (trace.prompt_tokens, trace.cached_tokens, trace.completion_tokens) == (300, 256, 7)
    assert (trace.prompt_ms, trace.generation_ms) == (120.5, 830.25)
    assert trace.finish_reason == "stop" and not trace.cut
    assert trace.max_tokens == fake.calls[0]["max_tokens"] >= 64
    assert trace.started > 0


async def test_a_stream_asks_for_its_usage_and_traces_what_the_server_counted():
    fake = FakeLiteLLM(finish="length")
    client, traces = client_with(fake)
    assert "".join([p async for p in client.stream(MESSAGES)]) == "Hola mundo"
    assert fake.calls[0]["stream_options"] == {"include_usage": True}
    (trace,) = traces
    assert (trace.prompt_tokens, trace.cached_tokens, trace.completion_tokens) == (40, 32, 2)
    assert trace.cut and trace.outcome == "ok"


async def test_providers_that_may_refuse_stream_options_are_not_sent_them():
    fake = FakeLiteLLM()
    client, traces = client_with(fake, ModelConfig(model="ollama_chat/llama3.2"))
    assert [p async for p in client.stream(MESSAGES)] == ["Hola", " mundo"]
    assert "stream_options" not in fake.calls[0]


async def test_an_ollama_stream_traces_its_final_counts_and_a_cut():
    class Fake:
        async def chat(self, **kwargs):
            async def parts():
                yield SimpleNamespace(message=SimpleNamespace(content="Hola"), done=False)
                yield SimpleNamespace(
                    message=SimpleNamespace(content=""),
                    done=True,
                    prompt_eval_count=18,
                    eval_count=9,
                    done_reason="length",
                )

            return parts()

    traces: list[CallTrace] = []
    backend = OllamaBackend(client_factory=lambda host, timeout: Fake())
    client = LLMClient(
        {"default": ModelConfig(provider="ollama", model="llama3.2")},
        backend=backend,
        trace_sink=traces.append,
    )
    assert [p async for p in client.stream(MESSAGES)] == ["Hola"]
    (trace,) = traces
    assert (trace.prompt_tokens, trace.completion_tokens, trace.cut) == (18, 9, True)


async def test_a_scripted_stream_cut_at_the_limit_is_traced_as_cut():
    traces: list[CallTrace] = []
    client = scripted_client(
        [Completion("Una respuesta a medias", finish_reason="length")], trace_sink=traces.append
    )
    assert "".join([p async for p in client.stream(MESSAGES)]) == "Una respuesta a medias"
    assert traces[0].cut and traces[0].completion_tokens > 0
