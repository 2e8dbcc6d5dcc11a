"""core.models.uses_bundled_model: what screens read to say results are for trying the
mechanics (issue 12; the banner itself is the TUI's)."""

from __future__ import annotations

import inspect

from core.models import uses_bundled_model
from core.settings import Settings
from local_llm.config import LOCAL_MODEL
from local_llm.local_server import LocalServer


def test_the_bundled_alias_is_the_local_servers() -> None:
    assert inspect.signature(LocalServer).parameters["alias"].default == LOCAL_MODEL


def test_the_bundled_model_is_recognised_by_role(tmp_path) -> None:
    demo = Settings(
        data={"directory": tmp_path},
        models={"model": "openai/gemma3-270m", "base_url": "http://127.0.0.1:8080/v1"},
    )
    assert uses_bundled_model(demo) and uses_bundled_model(demo, "judge")
    local = Settings(data={"directory": tmp_path}, models={"provider": "local"})
    assert uses_bundled_model(local)
    mixed = Settings(
        data={"directory": tmp_path},
        models={
            "model": "openai/gemma3-270m",
            "roles": {"judge": {"model": "ollama_chat/qwen2.5:7b"}},
        },
    )
    assert uses_bundled_model(mixed) and not uses_bundled_model(mixed, "judge")
    own = Settings(data={"directory": tmp_path}, models={"model": "ollama_chat/llama3.2"})
    assert not uses_bundled_model(own)


async def test_the_gate_says_what_the_bundled_server_is_doing(tmp_path, monkeypatch) -> None:
    """Home's model line came from a gate that said "starts when first needed" while the
    bundled server was already running (issue 12 walk): stopped, starting, running on port N."""
    import asyncio
    import sys
    from pathlib import Path

    from pydantic import BaseModel

    from core.model_gate import model_gate
    from local_llm import LLMClient, ModelConfig, local_server
    from local_llm.backends.local_backend import LocalBackend
    from local_llm.testing import ScriptedBackend

    stand_in = Path(__file__).resolve().parents[1] / "servers" / "stand_in_llama.py"
    monkeypatch.setattr(local_server, "is_available", lambda: True)
    backend = LocalBackend(
        tmp_path,
        inner=lambda: ScriptedBackend(['{"label": "a"}']),
        command=lambda mode, port: [
            sys.executable,
            str(stand_in),
            "--port",
            str(port),
            "--delay",
            "1.5",
        ],
    )
    config = ModelConfig(provider="local", model="gemma3-270m", context_budget=48, max_tokens=16)
    client = LLMClient({"default": config}, backends={"local": backend})

    class Label(BaseModel):
        label: str

    try:
        before = await model_gate(client)
        assert before.ready and "stopped" in before.summary
        call = asyncio.create_task(client.structured([{"role": "user", "content": "x"}], Label))
        for _ in range(100):  # the stand-in takes 1.5 s to answer /health
            await asyncio.sleep(0.05)
            if backend.server_state() == "starting":
                break
        assert "starting" in (await model_gate(client)).summary
        await call
        port = backend.server("chat", config).url.rsplit(":", 1)[1]
        after = (await model_gate(client)).summary
        assert after == f"the bundled model (running on port {port})"
        assert "first needed" not in after
    finally:
        client.close()
