"""Listing a server's models and checking a role's model, against real servers (tests/servers)."""

from __future__ import annotations

from core.model_health import check_model
from local_llm import LLMClient, ModelConfig
from local_llm.catalog import list_server_models
from local_llm.local_server import free_port


async def test_ollama_models_come_with_size_parameters_and_context_length(fake_ollama):
    fake_ollama.set_models(
        [
            {
                "name": "qwen2.5:7b",
                "size": 4683087332,
                "parameter_size": "7.6B",
                "context_length": 32768,
                "family": "qwen2",
                "quantization": "Q4_K_M",
            },
            {
                "name": "llama3.2:latest",
                "size": 2019393189,
                "parameter_size": "3.2B",
                "context_length": 131072,
            },
        ]
    )
    models = await list_server_models(ModelConfig(model="ollama_chat/x", base_url=fake_ollama.url))
    qwen, llama = models
    assert (qwen.name, qwen.size_bytes, qwen.parameters, qwen.context_length) == (
        "qwen2.5:7b",
        4683087332,
        "7.6B",
        32768,
    )
    assert qwen.family == "qwen2" and qwen.quantization == "Q4_K_M"
    assert llama.context_length == 131072
    assert len(fake_ollama.requests("/api/show")) == 2


async def test_openai_compatible_models_and_the_bundled_one(fake_openai):
    listed = await list_server_models(
        ModelConfig(model="openai/gpt-fake", base_url=f"{fake_openai.url}/v1")
    )
    assert [m.name for m in listed] == ["gpt-fake", "embed-fake"]
    (bundled,) = await list_server_models(ModelConfig(provider="local", model="gemma3-270m"))
    assert bundled.name == "gemma3-270m" and bundled.context_length == 32768
    assert await list_server_models(ModelConfig(model="gpt-4o-mini")) == []  # hosted: unlisted


async def test_health_is_one_result_per_check_each_failure_with_its_fix(fake_ollama):
    config = ModelConfig(model="ollama_chat/mistral", base_url=fake_ollama.url)
    checks = await check_model(LLMClient({"default": config}))
    assert [(c.name, c.status) for c in checks] == [
        ("server", "ok"),
        ("model", "failed"),
        ("structured output", "skipped"),
    ]
    assert checks[1].fix == (
        "run `ollama pull mistral`, or set models.model to one of: llama3.2:latest, "
        "nomic-embed-text:latest"
    )
    fake_ollama.set_models([{"name": "mistral:latest"}])
    after_pull = await check_model(LLMClient({"default": config}))
    assert [c.status for c in after_pull] == ["ok", "ok", "ok"]


async def test_health_of_a_server_that_is_down():
    port = free_port()
    config = ModelConfig(model="ollama_chat/llama3.2", base_url=f"http://127.0.0.1:{port}")
    server, model, answer = await check_model(LLMClient({"default": config}))
    assert server.status == "failed" and "`ollama serve`" in server.fix
    assert model.status == answer.status == "skipped"


async def test_pulling_a_model_shows_progress_and_the_model_is_then_listed(fake_ollama):
    from local_llm.backends.ollama_backend import OllamaBackend

    config = ModelConfig(provider="ollama", model="qwen2.5:7b", base_url=fake_ollama.url)
    client = LLMClient({"default": config}, backend=OllamaBackend())
    steps = [step async for step in client.pull("qwen2.5:7b")]
    fractions = [s.fraction for s in steps if s.fraction is not None]
    assert fractions == [0.0, 0.25, 0.5, 1.0] and steps[-1].status == "success"
    assert [c.status for c in await check_model(client)] == ["ok", "ok", "ok"]
