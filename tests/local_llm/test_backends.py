"""Backends translate configs into the right library calls (library objects faked)."""

from __future__ import annotations

from types import SimpleNamespace

from pydantic import BaseModel

from local_llm import LLMClient, ModelConfig, bounded_schema
from local_llm.backends import backend_for
from local_llm.backends.litellm_backend import LiteLLMBackend
from local_llm.backends.ollama_backend import OllamaBackend
from local_llm.grammar import WHITESPACE_TOKENS, answer_tokens, limit_tokens

MESSAGES = [{"role": "user", "content": "hi"}]


class Answer(BaseModel):
    label: str


class FakeOllamaClient:
    """Records calls the way `ollama.AsyncClient` would receive them."""

    def __init__(self, host, timeout):
        self.host, self.timeout, self.calls = host, timeout, []

    async def chat(self, **kwargs):
        self.calls.append(("chat", kwargs))
        if kwargs.get("stream"):
            return self._parts()
        return SimpleNamespace(
            message=SimpleNamespace(content='{"label": "a"}'),
            prompt_eval_count=12,
            eval_count=5,
            done_reason="stop",
        )

    async def _parts(self):
        for piece in ("Hel", "lo"):
            yield SimpleNamespace(message=SimpleNamespace(content=piece), done=False)
        yield SimpleNamespace(message=SimpleNamespace(content=""), done=True)

    async def embed(self, **kwargs):
        self.calls.append(("embed", kwargs))
        return SimpleNamespace(embeddings=[[0.1, 0.2] for _ in kwargs["input"]])

    async def list(self):
        return SimpleNamespace(
            models=[SimpleNamespace(model="qwen2.5:7b"), SimpleNamespace(model="llama3.2")]
        )

    async def pull(self, model, stream):
        async def steps():
            yield SimpleNamespace(status="pulling", completed=5, total=10)
            yield SimpleNamespace(status="success", completed=None, total=None)

        self.calls.append(("pull", {"model": model, "stream": stream}))
        return steps()


def _ollama():
    made: list[FakeOllamaClient] = []

    def factory(host, timeout):
        made.append(FakeOllamaClient(host, timeout))
        return made[-1]

    return OllamaBackend(client_factory=factory), made


OLLAMA = ModelConfig(
    provider="ollama",
    model="ollama_chat/qwen2.5:7b",
    base_url="http://127.0.0.1:11434",
    context_budget=6000,
    max_tokens=500,
    temperature=0.3,
    timeout_s=30,
)


async def test_ollama_passes_schema_as_format_and_always_sets_num_ctx():
    backend, made = _ollama()
    client = LLMClient({"default": OLLAMA}, backend=backend)
    schema = bounded_schema(Answer, enums={"label": ["a", "b"]})
    answer = await client.structured(MESSAGES, Answer, json_schema=schema)
    assert answer.label == "a"
    (fake,) = made
    assert (fake.host, fake.timeout) == ("http://127.0.0.1:11434", 30)
    kind, call = fake.calls[0]
    assert kind == "chat" and call["model"] == "qwen2.5:7b"
    assert call["format"] == schema
    # no stop sequences under a schema: the grammar ends the answer; the schema fits 500
    assert call["options"] == {"num_ctx": 6500, "temperature": 0.3, "num_predict": 500}
    assert answer_tokens(schema) <= 500
    assert call["keep_alive"] == "30m"


async def test_ollama_truncation_maps_to_length():
    backend, made = _ollama()
    completion = await backend.complete(MESSAGES, json_schema=None, config=OLLAMA)
    assert completion.finish_reason == "stop" and completion.prompt_tokens == 12
    made[0].chat = _truncating_chat
    assert (await backend.complete(MESSAGES, json_schema=None, config=OLLAMA)).finish_reason == (
        "length"
    )


async def _truncating_chat(**kwargs):
    return SimpleNamespace(
        message=SimpleNamespace(content='{"lab'),
        prompt_eval_count=1,
        eval_count=500,
        done_reason="length",
    )


async def test_ollama_stream_embed_list_and_pull():
    backend, made = _ollama()
    client = LLMClient({"default": OLLAMA, "embedding": OLLAMA}, backend=backend)
    assert [p async for p in client.stream(MESSAGES)] == ["Hel", "lo"]
    assert await client.embed(["a", "b"]) == [[0.1, 0.2], [0.1, 0.2]]
    (fake,) = made  # one client reused per host
    stream_call = fake.calls[0][1]
    assert stream_call["stream"] is True and stream_call["options"]["num_ctx"] == 6500
    assert fake.calls[1][1]["options"] == {"num_ctx": 6500}
    assert await backend.list_models(OLLAMA) == ["llama3.2", "qwen2.5:7b"]
    steps = [s async for s in backend.pull("ollama/phi4", OLLAMA)]
    assert [s.fraction for s in steps] == [0.5, None]
    assert fake.calls[-1][1] == {"model": "phi4", "stream": True}


class FakeLiteLLM:
    def __init__(self):
        self.calls = []

    async def acompletion(self, **kwargs):
        self.calls.append(kwargs)
        message = SimpleNamespace(content='{"label": "b"}')
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message, finish_reason="stop")],
            usage=SimpleNamespace(prompt_tokens=9, completion_tokens=4),
        )

    async def aembedding(self, **kwargs):
        self.calls.append(kwargs)
        data = [{"index": i, "embedding": [float(i)]} for i in range(len(kwargs["input"]))]
        return SimpleNamespace(data=list(reversed(data)))


LOCAL = ModelConfig(model="openai/gemma3-270m", base_url="http://127.0.0.1:9/v1", max_tokens=64)


async def test_litellm_sends_a_strict_json_schema_response_format():
    backend = LiteLLMBackend()
    backend._litellm = fake = FakeLiteLLM()
    client = LLMClient({"default": LOCAL}, backend=backend)
    assert (await client.structured(MESSAGES, Answer)).label == "b"
    call = fake.calls[0]
    assert call["model"] == "openai/gemma3-270m" and call["api_base"] == "http://127.0.0.1:9/v1"
    assert call["num_retries"] == 0
    assert call["api_key"]  # local OpenAI-compatible servers still need some key string
    fmt = call["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["name"] == "Answer"
    # the model's own schema leaves the label unbounded: on the wire it fits max_tokens
    label = fmt["json_schema"]["schema"]["properties"]["label"]
    assert label["type"] == "string" and label["maxLength"] > 0
    wire = fmt["json_schema"]["schema"]
    assert answer_tokens(wire, WHITESPACE_TOKENS) <= 64
    # written with the widest whitespace the grammar allows, it still fits the call's limit
    assert call["max_tokens"] == max(64, limit_tokens(wire))


async def test_litellm_sends_a_grammar_in_the_request_body_and_no_response_format():
    backend = LiteLLMBackend()
    backend._litellm = fake = FakeLiteLLM()
    config = ModelConfig(model="openai/gemma3-270m", base_url="http://127.0.0.1:9/v1")
    schema = {"type": "object", "properties": {"label": {"type": "string"}}}
    done = await backend.complete(
        [{"role": "user", "content": "x"}], json_schema=schema, config=config, grammar="root ::= x"
    )
    assert done.text == '{"label": "b"}'
    call = fake.calls[0]
    assert call["extra_body"] == {"grammar": "root ::= x", "cache_prompt": True}
    assert "response_format" not in call and "stop" not in call


async def test_litellm_embeddings_come_back_in_input_order():
    backend = LiteLLMBackend()
    backend._litellm = FakeLiteLLM()
    assert await backend.embed(["x", "y", "z"], config=LOCAL) == [[0.0], [1.0], [2.0]]


async def test_litellm_hosted_model_gets_no_placeholder_key():
    backend = LiteLLMBackend()
    backend._litellm = fake = FakeLiteLLM()
    await backend.complete(MESSAGES, json_schema=None, config=ModelConfig(model="gpt-4o-mini"))
    assert "api_key" not in fake.calls[0] and "api_base" not in fake.calls[0]
    assert "response_format" not in fake.calls[0]


def test_backend_for_picks_by_provider_and_api_key_is_not_in_repr():
    assert isinstance(backend_for(OLLAMA), OllamaBackend)
    assert isinstance(backend_for(LOCAL), LiteLLMBackend)
    secret = ModelConfig(model="gpt-4o-mini", api_key="sk-very-secret")
    assert "sk-very-secret" not in repr(secret)
