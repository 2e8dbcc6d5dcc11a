"""First run: no vault is configured. Choose the vault folder (a directory tree, or a typed
path), remembered in the user's settings file with the language its notes are written in; or
open the demo vault; or decide later (esc)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, DirectoryTree, Footer, Header, Input, Static

from tui.screens.base import NoemaScreen

INTRO = (
    "noema works on your Obsidian vault: the folder that holds your notes. Choose it in the "
    "tree (enter opens a folder and puts it in the box) or type its path, then ctrl+o or "
    '"Use this folder". No vault yet? Open the demo vault (ctrl+d) to try noema on sample '
    "notes."
)


class FolderTree(DirectoryTree):
    """Folders only, hidden ones left out."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [p for p in paths if p.is_dir() and not p.name.startswith(".")]


def note_count(folder: Path, limit: int = 10_000) -> int:
    """Markdown notes in a folder (counted up to `limit`)."""
    count = 0
    for _ in folder.rglob("*.md"):
        count += 1
        if count >= limit:
            break
    return count


class FirstRunScreen(NoemaScreen):
    """Shown over home when no vault is configured."""

    DEFAULT_CSS = """
    FirstRunScreen #intro { padding: 1 2; }
    FirstRunScreen #vault-path { margin: 0 2; }
    FirstRunScreen FolderTree { height: 1fr; margin: 0 2; border: round $primary; }
    FirstRunScreen #first-run-buttons { height: auto; margin: 0 2; }
    FirstRunScreen #first-run-status { padding: 0 2; height: auto; }
    """
    BINDINGS = [
        Binding("ctrl+o", "use_folder", "Use this folder", id="first_run.use"),
        Binding("ctrl+d", "demo", "Demo vault", id="first_run.demo"),
        Binding("escape", "later", "Later", id="first_run.later"),
    ]

    def __init__(self, start: Path | None = None) -> None:
        super().__init__()
        self.start = start or Path.home()

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(INTRO, id="intro")
        yield Input(placeholder="~/Obsidian/MyVault", id="vault-path")
        yield FolderTree(self.start, id="folders")
        with Horizontal(id="first-run-buttons"):
            yield Button("Use this folder", id="use", variant="primary")
            yield Button("Open the demo vault", id="demo")
            yield Button("Later", id="later")
        yield Static("", id="first-run-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Choose your vault"
        self.query_one(FolderTree).focus()

    @on(DirectoryTree.DirectorySelected)
    def _folder_selected(self, event: DirectoryTree.DirectorySelected) -> None:
        path = Path(event.path)
        self.query_one("#vault-path", Input).value = str(path)
        count = note_count(path)
        self.status(f"{path}: {count:,} notes{'+' if count >= 10_000 else ''} · ctrl+o uses it")

    def status(self, text: str) -> None:
        self.query_one("#first-run-status", Static).update(text)

    @on(Button.Pressed, "#use")
    @on(Input.Submitted, "#vault-path")
    def action_use_folder(self) -> None:
        typed = self.query_one("#vault-path", Input).value.strip()
        if not typed:
            self.status("choose a folder in the tree or type its path first")
            return
        folder = Path(typed).expanduser()
        if not folder.is_dir():
            self.status(f"{folder} is not a folder")
            return
        self.status(f"reading {folder}…")
        self.use_folder(folder.resolve())

    @work(exclusive=True, group="first-run", exit_on_error=False)
    async def use_folder(self, folder: Path) -> None:
        """Remember the vault (and its notes' language) in the user's settings, then open it."""
        from core.ingest import layout_from_settings
        from core.note_language import vault_language
        from tui.choices import save_choice

        layout = layout_from_settings(self.app.settings)
        language = await asyncio.to_thread(vault_language, folder, layout)
        update: dict[str, Any] = {"vault": {"path": str(folder)}}
        if language and not self.app.settings.vault.language:
            update["vault"]["language"] = language
        if not save_choice(self.app, update, f"vault {folder}"):
            self.status("not saved: see the message")
            return
        if language:
            self.notify(f"notes will be written in {language} (vault.language in your settings)")
        self.app.reopen_services()
        self.dismiss_first_run()

    @on(Button.Pressed, "#demo")
    def action_demo(self) -> None:
        self.status("preparing the demo vault (copying the sample notes, finding a model)…")
        self.open_demo()

    @work(exclusive=True, group="first-run", exit_on_error=False)
    async def open_demo(self) -> None:
        """The demo vault as `noema demo` makes it (its own settings file), opened here."""
        from tui import demo as demo_mod

        lines: list[str] = []
        target = Path.home() / "noema-demo-vault"
        demo = await asyncio.to_thread(demo_mod.prepare, target, self.app.settings, lines.append)
        demo.close()  # the app's own client takes over the model
        self.app.settings = demo.settings
        self.app.settings_path = demo.settings_file
        self.app.vault_label = f"demo: {demo.vault}"
        self.notify(
            f"demo vault at {demo.vault}; open it again with `noema demo --path {demo.vault}`",
            title="Demo",
            timeout=10,
        )
        self.app.reopen_services()
        self.dismiss_first_run()

    @on(Button.Pressed, "#later")
    def action_later(self) -> None:
        self.dismiss_first_run()

    def dismiss_first_run(self) -> None:
        if self.app.screen is self:
            self.app.pop_screen()
