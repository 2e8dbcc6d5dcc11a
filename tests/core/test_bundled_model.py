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
