"""Settings: precedence, validation messages, data dir rules, the documented defaults file."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import Settings, SettingsError, load_settings
from core.settings.document import render_defaults
from core.settings.loader import REPO_DEFAULTS


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_committed_settings_toml_documents_the_model_defaults() -> None:
    assert REPO_DEFAULTS.read_text(encoding="utf-8") == render_defaults(), (
        "settings.toml is stale: run `python -m core.settings.document > settings.toml`"
    )


def test_every_field_has_a_docstring() -> None:
    def walk(model: type, prefix: str) -> list[str]:
        missing = []
        for name, info in model.model_fields.items():
            if not info.description:
                missing.append(prefix + name)
            annotation = info.annotation
            if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
                missing += walk(annotation, f"{prefix}{name}.")
        return missing

    assert walk(Settings, "") == []


def test_user_file_overrides_defaults_and_env_overrides_both(tmp_path, monkeypatch) -> None:
    user = write(
        tmp_path / "mine.toml", '[models]\nmodel = "ollama_chat/qwen"\ntemperature = 0.5\n'
    )
    monkeypatch.setenv("NOEMA_MODELS__TEMPERATURE", "0.9")
    settings = load_settings(user)
    assert settings.models.model == "ollama_chat/qwen"
    assert settings.models.temperature == 0.9
    assert settings.models.context_budget == 8192


def test_noema_settings_env_var_names_the_user_file(tmp_path, monkeypatch) -> None:
    user = write(tmp_path / "env.toml", "[flows.extraction]\ntop_k = 7\n")
    monkeypatch.setenv("NOEMA_SETTINGS", str(user))
    assert load_settings().flows.extraction.top_k == 7


def test_xdg_config_file_is_read(tmp_path, monkeypatch) -> None:
    config = tmp_path / "xdg"
    (config / "noema").mkdir(parents=True)
    write(config / "noema" / "settings.toml", '[tui]\ntheme = "nord"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    assert load_settings().tui.theme == "nord"


def test_invalid_value_names_file_key_and_problem(tmp_path) -> None:
    user = write(tmp_path / "bad.toml", "[models]\ntemperature = 7\n")
    with pytest.raises(SettingsError) as info:
        load_settings(user)
    message = str(info.value)
    assert (
        str(user) in message and "models.temperature" in message and "less than or equal" in message
    )


def test_unknown_key_is_reported(tmp_path) -> None:
    user = write(tmp_path / "typo.toml", "[models]\ntemprature = 0.1\n")
    with pytest.raises(SettingsError, match=r"models\.temprature: Extra inputs"):
        load_settings(user)


def test_broken_toml_is_reported_with_file(tmp_path) -> None:
    user = write(tmp_path / "broken.toml", "[models\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(user)


def test_missing_explicit_file_is_an_error(tmp_path) -> None:
    with pytest.raises(SettingsError, match="not found"):
        load_settings(tmp_path / "nope.toml")


def test_data_dir_inside_vault_is_refused(tmp_path) -> None:
    vault = tmp_path / "vault"
    user = write(
        tmp_path / "s.toml",
        f'[vault]\npath = "{vault}"\n[data]\ndirectory = "{vault / ".noema"}"\n',
    )
    with pytest.raises(SettingsError, match="inside the vault"):
        load_settings(user)


def test_role_inherits_unset_fields_and_overrides_set_ones(tmp_path) -> None:
    user = write(
        tmp_path / "roles.toml",
        '[models]\nmodel = "base"\n[models.roles.judge]\nmodel = "big"\ntemperature = 0.0\n',
    )
    settings = load_settings(user)
    judge = settings.role("judge")
    assert judge.model == "big" and judge.temperature == 0.0
    assert judge.context_budget == settings.models.context_budget
    assert settings.role("unknown-role").model == "base"


def test_api_keys_are_never_stored_in_settings() -> None:
    names = set(Settings().models.model_dump()) | set(Settings().role("default").model_dump())
    assert not {"api_key", "key", "secret", "token"} & names


def test_invalid_environment_value_names_the_variable_not_a_file(tmp_path, monkeypatch) -> None:
    user = write(tmp_path / "ok.toml", "[models]\ntemperature = 0.2\n")
    monkeypatch.setenv("NOEMA_MODELS__TEMPERATURE", "hot")
    with pytest.raises(SettingsError) as info:
        load_settings(user)
    message = str(info.value)
    assert "NOEMA_MODELS__TEMPERATURE" in message and "models.temperature" in message
    assert str(user) not in message


def test_a_settings_file_that_is_not_utf8_is_a_clear_error(tmp_path) -> None:
    user = tmp_path / "latin.toml"
    user.write_bytes("[models]\ntemperature = 0.1 # café\n".encode("latin-1"))
    with pytest.raises(SettingsError) as info:
        load_settings(user)
    assert str(user) in str(info.value) and "UTF-8" in str(info.value)


@pytest.mark.parametrize("table", ["[models]", "[models.roles.judge]"])
def test_an_api_key_in_a_settings_file_is_refused_pointing_to_api_key_env(tmp_path, table):
    user = write(tmp_path / "key.toml", f'{table}\napi_key = "sk-proj-Abc123def456ghi789"\n')
    with pytest.raises(SettingsError) as info:
        load_settings(user)
    message = str(info.value)
    assert str(user) in message and "api_key_env" in message
    assert "never read from a settings file" in message
    assert "sk-proj-Abc123def456ghi789" not in message and "Extra inputs" not in message


@pytest.mark.parametrize(
    "pasted",
    [
        "sk-proj-Abc123def456ghi789jkl",  # OpenAI
        "sk-ant-api03-AbCdEf0123456789",  # Anthropic
        "gsk_4fJk29sLmQ8zPwX3vB7nT1yR",  # Groq: a valid variable name, but a key
        "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",  # Google
    ],
)
def test_a_key_pasted_as_the_value_of_api_key_env_is_refused_unechoed(tmp_path, pasted):
    user = write(tmp_path / "env.toml", f'[models]\napi_key_env = "{pasted}"\n')
    with pytest.raises(SettingsError) as info:
        load_settings(user)
    message = str(info.value)
    assert "models.api_key_env" in message and "not the name of an environment variable" in message
    assert pasted not in message


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "my_key", "GROQ_KEY_2"])
def test_variable_names_are_accepted_as_api_key_env(tmp_path, name):
    user = write(tmp_path / "env.toml", f'[models.roles.judge]\napi_key_env = "{name}"\n')
    assert load_settings(user).role("judge").api_key_env == name


def test_local_provider_and_context_settings_reach_every_role(tmp_path):
    from core.models import model_configs

    user = write(
        tmp_path / "local.toml",
        (
            '[models]\nprovider = "local"\ncontext_budget = 3000\nmax_tokens = 200\n'
            "[models.roles.judge]\nnum_ctx = 8000\n"
        ),
    )
    configs = model_configs(load_settings(user))
    assert configs["default"].provider == "local" and configs["default"].model == "gemma3-270m"
    assert configs["default"].context_window == 3200 and configs["judge"].context_window == 8000
    assert configs["embedding"].context_window == 2048  # the embedding server's own context
    assert configs["default"].keep_alive == "30m"


def test_local_slots_start_the_chat_server_with_that_many_slots_of_a_whole_context(tmp_path):
    """Parallel calls of a flow (duplicate checks, relations) are decoded together."""
    from core.models import local_backend, model_configs

    user = write(
        tmp_path / "slots.toml",
        (
            '[models]\nprovider = "local"\ncontext_budget = 3000\nmax_tokens = 200\nlocal_slots = 4\n'
        ),
    )
    settings = load_settings(user)
    backend, config = local_backend(settings), model_configs(settings)["default"]
    chat = backend.server("chat", config)._command(8080)
    assert chat[chat.index("--parallel") + 1] == "4"
    assert chat[chat.index("--ctx-size") + 1] == str(4 * 3200)  # each slot: the whole window
    embedding = backend.server("embedding", model_configs(settings)["embedding"])._command(8081)
    assert embedding[embedding.index("--parallel") + 1] == "1"
    assert load_settings(write(tmp_path / "one.toml", "")).models.local_slots == 1
    with pytest.raises(SettingsError, match="local_slots"):
        load_settings(write(tmp_path / "zero.toml", "[models]\nlocal_slots = 0\n"))
