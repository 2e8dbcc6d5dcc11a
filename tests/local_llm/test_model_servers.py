"""Both backends against real HTTP servers (tests/servers): what every request carries, and how
each way a server fails reaches the caller. No library object is faked on this path.
"""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel

import local_llm.retry as retry
from local_llm import LLMClient, ModelConfig
from local_llm.errors import (
    AuthenticationError,
    ModelTimeoutError,
    ModelUnavailableError,
    ModelUnreachableError,
    RateLimitError,
    ServerError,
    StreamCutError,
    StructuredOutputError,
)
from local_llm.turn_markers import TURN_MARKERS
from tests.servers.fixtures import FAKE_OPENAI_KEY

MESSAGES = [{"role": "user", "content": "Explain spaced repetition in one line."}]


class Label(BaseModel):
    label: str


def ollama_configs(url: str) -> dict[str, ModelConfig]:
    """Ollama reached three ways: its own client, litellm's chat route and generate route."""
    common = {"base_url": url, "context_budget": 6000, "max_tokens": 500, "transient_retries": 0}
    return {
        "ollama": ModelConfig(provider="ollama", model="llama3.2", **common),
        "litellm ollama_chat/": ModelConfig(model="ollama_chat/llama3.2", **common),
        "litellm ollama/": ModelConfig(model="ollama/llama3.2", **common),
    }


@pytest.fixture
def no_sleep(monkeypatch):
    waited: list[float] = []

    async def record(delay: float) -> None:
        waited.append(delay)

    monkeypatch.setattr(retry, "sleep", record)
    return waited


@pytest.mark.parametrize("way", ["ollama", "litellm ollama_chat/", "litellm ollama/"])
async def test_every_ollama_request_carries_num_ctx_stop_and_keep_alive(fake_ollama, way):
    config = ollama_configs(fake_ollama.url)[way]
    embedder = config.replace(model=config.model.replace("llama3.2", "nomic-embed-text"))
    client = LLMClient({"default": config, "embedding": embedder})
    fake_ollama.answers('{"label": "a"}')
    assert (await client.structured(MESSAGES, Label, max_tokens=64)).label == "a"
    streamed = "".join([piece async for piece in client.stream(MESSAGES)])
    assert streamed == "Hello from the fake server."
    assert len(await client.embed(["one", "two"])) == 2
    chats = [r["json"] for r in fake_ollama.requests("/api/chat")]
    assert fake_ollama.requests("/api/generate") == []  # the model's own chat template
    embeds = [r["json"] for r in fake_ollama.requests("/api/embed")]
    assert len(chats) == 2 and len(embeds) == 1
    for body in chats:
        # one context for every call of the role (a call's own max_tokens does not change
        # it, so Ollama never reloads the model): budget 6000 + max_tokens 500
        assert body["options"]["num_ctx"] == 6500, body
        assert body["keep_alive"] == "30m", body
    structured, streamed_body = chats
    # the free answer stops at the turn markers; the schema's grammar ends the structured one
    assert "stop" not in structured["options"] and structured["format"]
    assert streamed_body["options"]["stop"] == list(TURN_MARKERS)
    assert embeds[0]["options"]["num_ctx"] == 6500 and embeds[0]["keep_alive"] == "30m"


async def test_num_ctx_can_be_set_per_role(fake_ollama):
    config = ollama_configs(fake_ollama.url)["litellm ollama_chat/"].replace(num_ctx=16384)
    await LLMClient({"default": config}).structured(MESSAGES, Label)
    (chat,) = fake_ollama.requests("/api/chat")
    assert chat["json"]["options"]["num_ctx"] == 16384


async def test_local_openai_compatible_servers_get_the_turn_markers_as_stop(fake_openai):
    """Free answers stop at the turn markers; an answer under a JSON schema gets none (the
    grammar ends it, and a marker written inside a string would cut the JSON)."""
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1")
    client = LLMClient({"default": config})
    await client.structured(MESSAGES, Label)
    _ = [piece async for piece in client.stream(MESSAGES)]
    bodies = [r["json"] for r in fake_openai.requests("/v1/chat/completions")]
    assert [b.get("stop") for b in bodies] == [None, list(TURN_MARKERS)]
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert "num_ctx" not in bodies[0] and "options" not in bodies[0]


def test_hosted_providers_get_no_stop_sequences():
    assert ModelConfig(model="gpt-4o-mini").stop_sequences() == []
    assert ModelConfig(model="anthropic/claude-3-5-haiku").stop_sequences() == []
    assert ModelConfig(provider="local", model="gemma3-270m").stop_sequences() == list(TURN_MARKERS)


# -- a stream that ends without the server's finish is not a complete answer ----------------


def _stream_configs(ollama_url: str, openai_url: str) -> dict[str, ModelConfig]:
    return {
        **ollama_configs(ollama_url),
        "litellm openai/": ModelConfig(
            model="openai/gpt-fake", base_url=f"{openai_url}/v1", transient_retries=0
        ),
    }


@pytest.mark.parametrize(
    "way", ["ollama", "litellm ollama_chat/", "litellm ollama/", "litellm openai/"]
)
@pytest.mark.parametrize(
    "cut",
    [{"drop_after": 2}, {"finish": None}],
    ids=["connection reset mid-answer", "closed without the final chunk"],
)
async def test_a_stream_cut_off_is_an_error_with_what_arrived(fake_ollama, fake_openai, way, cut):
    config = _stream_configs(fake_ollama.url, fake_openai.url)[way]
    server = fake_openai if way == "litellm openai/" else fake_ollama
    server.answers({"text": "Spaced repetition schedules reviews at growing intervals.", **cut})
    received: list[str] = []
    with pytest.raises(StreamCutError) as caught:
        async for piece in LLMClient({"default": config}).stream(MESSAGES):
            received.append(piece)
    assert caught.value.text == "".join(received)
    if "drop_after" in cut:
        assert received and len(caught.value.text) < len("Spaced repetition schedules reviews")
    assert caught.value.config.model == config.model


# -- failures, each typed so a person can be told what to do --------------------------------


async def test_a_refused_key_is_an_authentication_error_and_not_retried(
    fake_openai_keyed, no_sleep
):
    config = ModelConfig(
        model="openai/gpt-fake",
        base_url=f"{fake_openai_keyed.url}/v1",
        api_key="sk-wrong",
        api_key_env="FAKE_KEY",
    )
    with pytest.raises(AuthenticationError) as caught:
        await LLMClient({"default": config}).structured(MESSAGES, Label)
    assert len(fake_openai_keyed.requests("/v1/chat/completions")) == 1 and no_sleep == []
    assert caught.value.config.api_key_env == "FAKE_KEY"
    good = config.replace(api_key=FAKE_OPENAI_KEY)
    assert (await LLMClient({"default": good}).structured(MESSAGES, Label)).label == "x"


async def test_429_waits_the_retry_after_the_server_asks_for(fake_openai, no_sleep):
    fake_openai.fail(429, 1, headers={"retry-after": "2"})
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1")
    assert (await LLMClient({"default": config}).structured(MESSAGES, Label)).label == "x"
    assert no_sleep == [2.0]


async def test_429_asking_for_an_hour_fails_at_once_saying_so(fake_openai, no_sleep):
    fake_openai.fail(429, 5, headers={"retry-after": "3600"})
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1")
    with pytest.raises(RateLimitError) as caught:
        await LLMClient({"default": config}).structured(MESSAGES, Label)
    assert caught.value.retry_after_s == 3600 and no_sleep == []


async def test_500_is_retried_then_reported_as_a_server_error(fake_openai, no_sleep):
    fake_openai.fail(500, 10)
    config = ModelConfig(
        model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1", transient_retries=2
    )
    with pytest.raises(ServerError) as caught:
        await LLMClient({"default": config}).structured(MESSAGES, Label)
    assert caught.value.attempts == 3 and len(no_sleep) == 2
    assert len(fake_openai.requests("/v1/chat/completions")) == 3


@pytest.mark.parametrize("way", ["ollama", "litellm ollama_chat/"])
async def test_a_model_the_server_lacks_is_model_unavailable(fake_ollama, way):
    config = ollama_configs(fake_ollama.url)[way].replace(
        model=f"{'ollama_chat/' if 'litellm' in way else ''}llama3.1"
    )
    with pytest.raises(ModelUnavailableError):
        await LLMClient({"default": config}).structured(MESSAGES, Label)


async def test_hostile_answers_end_in_a_structured_output_error_after_re_asks(fake_openai):
    fake_openai.answers("Ignore the schema. ## Fuente\n---\n[[evil]]", '{"label": 5}', "{")
    config = ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1", retries=2)
    with pytest.raises(StructuredOutputError) as caught:
        await LLMClient({"default": config}).structured(MESSAGES, Label)
    assert caught.value.attempts == 3 and caught.value.raw_text == "{"


async def test_a_server_that_dies_mid_run_is_unreachable(fake_openai, no_sleep):
    config = ModelConfig(
        model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1", transient_retries=1
    )
    client = LLMClient({"default": config})
    assert (await client.structured(MESSAGES, Label)).label == "x"
    fake_openai.answers({"die": True})
    with pytest.raises(ModelUnreachableError) as caught:
        await client.structured(MESSAGES, Label)
    assert caught.value.attempts == 2 and not fake_openai.alive


async def test_a_slow_server_times_out_with_a_message_naming_the_limit(fake_openai, no_sleep):
    fake_openai.answers({"text": '{"label": "a"}', "delay_s": 3})
    config = ModelConfig(
        model="openai/gpt-fake",
        base_url=f"{fake_openai.url}/v1",
        timeout_s=0.5,
        transient_retries=0,
    )
    started = time.monotonic()
    with pytest.raises(ModelTimeoutError) as caught:
        await LLMClient({"default": config}).structured(MESSAGES, Label)
    assert time.monotonic() - started < 2.5
    assert "no answer within 0.5 s (models.timeout_s)" in str(caught.value)
