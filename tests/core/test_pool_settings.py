"""Pools in settings.toml: deployments per role, fallback roles, the policy, keys, traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.models import TraceRecorder, model_configs, role_config
from core.settings import SettingsError, load_settings
from core.store import Store
from local_llm import CallTrace

POOL = """
[models]
model = "ollama_chat/qwen2.5:7b"
deployments = [
  {model = "ollama_chat/qwen2.5:7b", base_url = "http://gpu1.lan:11434", max_parallel = 2},
  {model = "ollama_chat/qwen2.5:7b", base_url = "http://gpu2.lan:11434", name = "büro-gpu"},
]
[models.pool]
routing = "latency-based"
cooldown_s = 12.5
affinity = "none"
[models.roles.hosted]
model = "gpt-4o-mini"
base_url = "https://api.openai.com/v1"
api_key_env = "POOL_TEST_OPENAI_KEY"
"""


def settings_from(tmp_path: Path, text: str):
    path = tmp_path / "pool.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings(path)


def test_every_role_without_its_own_servers_uses_the_models_pool(tmp_path):
    configs = model_configs(settings_from(tmp_path, POOL))
    default = configs["default"]
    assert [d.label for d in default.deployments] == ["gpu1.lan:11434", "büro-gpu"]
    assert [d.max_parallel for d in default.deployments] == [2, 1]
    assert default.pool.routing == "latency-based" and default.pool.cooldown_s == 12.5
    assert configs["judge"].deployments == default.deployments
    assert configs["hosted"].deployments == ()  # its own model, no pool


def test_a_fallback_role_joins_the_pool_at_a_higher_order_with_its_key(tmp_path, monkeypatch):
    monkeypatch.setenv("POOL_TEST_OPENAI_KEY", "sk-test-secret")
    text = POOL + '[models.roles.default]\nfallback_roles = ["hosted"]\n'
    default = role_config(settings_from(tmp_path, text), "default")
    orders = [(d.label, d.order) for d in default.deployments]
    assert orders == [("gpu1.lan:11434", 1), ("büro-gpu", 1), ("api.openai.com", 2)]
    hosted = default.deployments[-1]
    assert hosted.api_key == "sk-test-secret" and hosted.api_key_env == "POOL_TEST_OPENAI_KEY"
    assert "sk-test-secret" not in repr(default)


def test_a_role_with_only_a_fallback_is_a_pool_of_its_model_and_the_fallback(tmp_path):
    text = (
        '[models]\nprovider = "ollama"\nmodel = "llama3.2"\nbase_url = "http://127.0.0.1:11434"\n'
        '[models.roles.backup]\nprovider = "litellm"\nmodel = "openai/qwen"\n'
        'base_url = "http://10.0.0.9:8080/v1"\n'
        '[models.roles.default]\nfallback_roles = ["backup", "default"]\n'
    )
    default = role_config(settings_from(tmp_path, text), "default")
    assert [(d.model, d.base_url, d.order) for d in default.deployments] == [
        ("ollama_chat/llama3.2", "http://127.0.0.1:11434", 1),  # Ollama reached through litellm
        ("openai/qwen", "http://10.0.0.9:8080/v1", 2),
    ]


def test_two_roles_falling_back_on_each_other_do_not_loop(tmp_path):
    text = (
        '[models.roles.a]\nmodel = "openai/a"\nbase_url = "http://a:1/v1"\nfallback_roles = ["b"]\n'
        '[models.roles.b]\nmodel = "openai/b"\nbase_url = "http://b:1/v1"\nfallback_roles = ["a"]\n'
    )
    settings = settings_from(tmp_path, text)
    assert [d.model for d in role_config(settings, "a").deployments] == ["openai/a", "openai/b"]
    assert [d.model for d in role_config(settings, "b").deployments] == ["openai/b", "openai/a"]


@pytest.mark.parametrize(
    "text",
    [
        '[models]\nprovider = "local"\ndeployments = [{model = "openai/x", base_url = "http://x/v1"}]\n',
        '[models.roles.default]\nprovider = "local"\nfallback_roles = ["judge"]\n',
    ],
)
def test_the_bundled_model_cannot_be_pooled(tmp_path, text):
    with pytest.raises(SettingsError) as info:
        settings_from(tmp_path, text)
    assert "cannot be part of a pool" in str(info.value)


@pytest.mark.parametrize(
    "deployment, problem",
    [
        ('{base_url = "http://x:1/v1"}', "model"),
        ('{model = "openai/x", max_parallel = 0}', "max_parallel"),
        ('{model = "openai/x", api_key = "sk-abc"}', "api_key_env"),
    ],
)
def test_a_bad_deployment_is_a_clear_error(tmp_path, deployment, problem):
    with pytest.raises(SettingsError) as info:
        settings_from(tmp_path, f"[models]\ndeployments = [{deployment}]\n")
    assert problem in str(info.value)
    assert "sk-abc" not in str(info.value)


def test_the_trace_of_a_call_names_the_deployment_that_answered(tmp_path):
    store = Store(tmp_path / "store.sqlite3")
    TraceRecorder(store)(
        CallTrace(
            flow="extraction",
            node="extract_batch",
            role="default",
            model="openai/q",
            kind="structured",
            prompt_tokens=10,
            completion_tokens=5,
            latency_ms=12.0,
            outcome="ok",
            run_id="r1",
            deployment="gpu2.lan:11434",
        )
    )
    row = store.query_one("SELECT deployment, model FROM traces WHERE run_id = 'r1'")
    assert tuple(row) == ("gpu2.lan:11434", "openai/q")
    store.close()
