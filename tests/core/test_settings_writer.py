"""Saving choices into the user's settings file keeps the file as the user wrote it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from core.settings import SettingsError, load_settings
from core.settings.loader import REPO_DEFAULTS
from core.settings.writer import save_user_settings

USER_FILE = """\
# Ana's noema settings — keep this note!
# (the model below is the one that fits my 8 GB laptop)

[vault]
path = "~/Obsidian/Bóveda 🧠"   # synced with Syncthing

[models]
# qwen is better at JSON than llama
model = "ollama_chat/qwen2.5:7b"
base_url = 'http://127.0.0.1:11434'
context_budget = 6_000

[models.roles.judge]
model = "ollama_chat/qwen2.5:14b"  # the big one

[tui]
keymap = { "app.help" = "f1" }
"""


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "conf" / "settings.toml"
    path.parent.mkdir()
    path.write_text(USER_FILE, encoding="utf-8")
    return path


def comment_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "#" in line]


def test_every_comment_and_line_is_kept_after_many_saves(user_file: Path) -> None:
    save_user_settings(user_file, {"models": {"roles": {"default": {"model": "ollama_chat/phi4"}}}})
    save_user_settings(user_file, {"tui": {"theme": "nord"}})
    save_user_settings(
        user_file,
        {"flows": {"tutor": {"learner": {"name": "Ana María", "interests": ["ajedrez", "🎻"]}}}},
    )
    save_user_settings(user_file, {"models": {"roles": {"judge": {"model": "ollama_chat/gemma3"}}}})
    text = user_file.read_text(encoding="utf-8")
    # every line the user wrote is still there, in the same order, except the changed value
    kept = [line for line in USER_FILE.splitlines() if "qwen2.5:14b" not in line]
    positions = [text.splitlines().index(line) for line in kept if line]
    assert positions == sorted(positions)
    assert 'model = "ollama_chat/gemma3"  # the big one' in text
    settings = load_settings(user_file)
    assert settings.models.model == "ollama_chat/qwen2.5:7b"
    assert settings.role("default").model == "ollama_chat/phi4"
    assert settings.role("judge").model == "ollama_chat/gemma3"
    assert settings.tui.theme == "nord"
    assert settings.tui.keymap == {"app.help": "f1"}
    assert settings.flows.tutor.learner.interests == ["ajedrez", "🎻"]
    assert settings.models.context_budget == 6000


def test_new_nested_tables_get_one_header_not_empty_parents(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    save_user_settings(path, {"flows": {"tutor": {"learner": {"name": "Kenji"}}}})
    text = path.read_text(encoding="utf-8")
    assert "[flows.tutor.learner]" in text
    assert "[flows]" not in text and "[flows.tutor]\n" not in text
    assert tomllib.loads(text) == {"flows": {"tutor": {"learner": {"name": "Kenji"}}}}


def test_an_invalid_value_leaves_the_file_byte_for_byte(user_file: Path) -> None:
    before = user_file.read_bytes()
    with pytest.raises(SettingsError, match="invalid"):
        save_user_settings(user_file, {"flows": {"tutor": {"max_replans": 99}}})
    with pytest.raises(SettingsError, match="invalid"):
        save_user_settings(user_file, {"models": {"no_such_key": 1}})
    assert user_file.read_bytes() == before
    assert not [p for p in user_file.parent.iterdir() if p.name.startswith(".settings-")]


def test_a_broken_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[models]\nmodel = "unterminated\n', encoding="utf-8")
    with pytest.raises(SettingsError, match="not valid TOML"):
        save_user_settings(path, {"tui": {"theme": "nord"}})
    assert path.read_text(encoding="utf-8") == '[models]\nmodel = "unterminated\n'


def test_the_repository_defaults_are_never_written() -> None:
    before = REPO_DEFAULTS.read_bytes()
    with pytest.raises(SettingsError, match="never written"):
        save_user_settings(REPO_DEFAULTS, {"tui": {"theme": "nord"}})
    assert REPO_DEFAULTS.read_bytes() == before


def test_inline_tables_stay_inline(user_file: Path) -> None:
    save_user_settings(user_file, {"tui": {"keymap": {"app.quit": "ctrl+q"}}})
    text = user_file.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith("keymap"))
    assert line.startswith('keymap = { "app.help" = "f1", "app.quit" = "ctrl+q"')
    assert "[tui.keymap]" not in text
