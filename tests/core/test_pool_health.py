"""Health of a pool against real servers: usable while one server answers with its model."""

from __future__ import annotations

from core.model_health import check_model
from local_llm import LLMClient, ModelConfig
from local_llm.deployments import Deployment
from tui.probe import reachable


def pool_client(servers, model: str = "openai/gpt-fake") -> LLMClient:
    deployments = tuple(Deployment(model, f"{s.url}/v1") for s in servers)
    return LLMClient({"default": ModelConfig(model=model, deployments=deployments)})


async def test_a_pool_with_one_server_down_is_usable_and_says_which(fake_servers):
    up, down, empty = fake_servers(3)
    down.kill()
    empty.set_models([{"name": "another-model"}])
    client = pool_client([up, down, empty])
    probe = await reachable(client)
    assert probe.ok
    assert probe.detail.startswith("1 of 3 servers answer with their model")
    assert f"127.0.0.1:{down.port}: cannot reach" in probe.detail
    assert f"127.0.0.1:{empty.port}: gpt-fake is not on it" in probe.detail
    checks = await check_model(client, list_timeout_s=2.0, timeout_s=10.0)
    assert [c.name for c in checks] == ["server", "model", "structured output"]
    assert [c.status for c in checks] == ["ok", "skipped", "ok"]


async def test_a_pool_with_every_server_down_is_not_usable(fake_servers):
    servers = fake_servers(2)
    for server in servers:
        server.kill()
    client = pool_client(servers)
    probe = await reachable(client)
    assert not probe.ok and probe.detail.startswith("0 of 2 servers")
    checks = await check_model(client, list_timeout_s=2.0)
    assert checks[0].status == "failed"
    assert checks[0].fix.startswith(
        f"start the server at {servers[0].url}/v1 or fix its entry in models.deployments"
    )
    assert [c.status for c in checks[1:]] == ["skipped", "skipped"]
