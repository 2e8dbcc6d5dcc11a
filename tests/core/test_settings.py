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
