"""First run: no vault configured. The app offers to choose the vault folder, remembers it in
the user's settings file (with its notes' language), and opens it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from core.settings import Settings, load_settings
from local_llm.testing import ScriptedBackend
from tests.core.test_note_language import ENGLISH, write_vault
from tests.tui.helpers import wait_for
from tui.app import NoemaApp
from tui.screens.first_run import FirstRunScreen, FolderTree
from tui.screens.home import HomeScreen

SIZE = (130, 40)
USER_FILE = '# my settings: this comment stays\n[tui]\ntheme = "textual-dark"\n'


def first_run_app(tmp_path: Path, watch: bool = False) -> NoemaApp:
    user_file = tmp_path / "user.toml"
    user_file.write_text(USER_FILE, encoding="utf-8")
    settings = Settings(data={"directory": tmp_path / "data"})
    return NoemaApp(
        settings, backend=ScriptedBackend([]), watch=watch, settings_path=user_file, first_run=True
    )


async def test_a_vault_chosen_at_first_run_is_remembered_and_opened(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "Notes Vault ✨", ENGLISH)
    app = first_run_app(tmp_path, watch=True)  # the watcher indexes the vault once opened
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await wait_for(pilot, lambda: app.services is not None)
        assert app.services.vault is None
        screen = app.screen
        box = screen.query_one("#vault-path", Input)
        box.value = str(tmp_path / "no such folder")
        await pilot.press("ctrl+o")
        assert "is not a folder" in str(screen.query_one("#first-run-status").render())
        box.value = str(vault)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await wait_for(pilot, lambda: app.services is not None and app.services.vault is not None)
        assert app.services.vault.root == vault.resolve()
        panel = app.screen.query_one("#vault-panel")
        await wait_for(pilot, lambda: "Notes: 4" in panel.text)
    text = (tmp_path / "user.toml").read_text(encoding="utf-8")
    assert text.startswith(USER_FILE)
    saved = load_settings(tmp_path / "user.toml")
    assert saved.vault.path == vault.resolve() and saved.vault.language == "en"


async def test_the_tree_fills_the_path_and_later_leaves_home_without_a_vault(tmp_path) -> None:
    write_vault(tmp_path / "Obsidian" / "Mine", ENGLISH)
    app = first_run_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        screen = app.screen
        tree = screen.query_one(FolderTree)
        tree.path = tmp_path / "Obsidian"
        await wait_for(pilot, lambda: tree.root.children)
        assert [node.label.plain for node in tree.root.children] == ["Mine"]
        tree.focus()
        tree.move_cursor(tree.root.children[0])
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.query_one("#vault-path", Input).value)
        assert screen.query_one("#vault-path", Input).value == str(tmp_path / "Obsidian" / "Mine")
        assert "4 notes" in str(screen.query_one("#first-run-status").render())
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
    assert (tmp_path / "user.toml").read_text(encoding="utf-8") == USER_FILE


async def test_the_demo_vault_opens_from_the_first_run(fake_ollama, tmp_path: Path) -> None:
    user_file = tmp_path / "user.toml"
    user_file.write_text(USER_FILE, encoding="utf-8")
    settings = Settings(
        data={"directory": tmp_path / "data"},
        models={"model": "ollama_chat/llama3.2", "base_url": fake_ollama.url},
    )
    app = NoemaApp(settings, watch=False, settings_path=user_file, first_run=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), timeout=60)
        await wait_for(pilot, lambda: app.services is not None and app.services.vault is not None)
        demo = Path.home() / "noema-demo-vault"  # HOME is a temporary folder in tests
        assert app.services.vault.root == demo.resolve()
        assert app.settings_path == demo.parent / "noema-demo-vault-data" / "settings.toml"
        panel = app.screen.query_one("#vault-panel")
        await wait_for(pilot, lambda: "Concepts: 14" in panel.text)
    # the user's own file is not the demo's: it stays as it was
    assert user_file.read_text(encoding="utf-8") == USER_FILE
