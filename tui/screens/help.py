"""The help screen: the keys of the screen it was opened from, then the keys that work
everywhere, each with what it does and its binding id (what `[tui] keymap` remaps).

Screen keys never shadow global ones: a screen binds only keys no global binding uses (the
README's key tables say the same), so a key in "Everywhere" does the same on every screen.
Widget internals (cursor moves, text editing) are not listed; a screen names the ones that
matter to it (`enter` on a table row) in `HELP_KEYS`.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Label, Static

from tui.keys import key_for

Row = tuple[str, str, str]
"""(key as displayed, what it does, binding id)."""


def screen_title(screen: Screen) -> str:
    """How the help names a screen: `Home`, `Extraction`, `Rubric`..."""
    return type(screen).__name__.removesuffix("Screen") or "This screen"


def help_sections(screen: Screen) -> list[tuple[str, list[Row]]]:
    """[(section title, rows)]: the screen's own keys in the order it declares them (its
    `HELP_KEYS` first), then the global ones."""
    own: list[Row] = []
    everywhere: list[Row] = []
    seen: set[tuple[str, str]] = set()
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not binding.id:
            continue  # Textual's own (copy text, focus next...): not what a person looks for
        if active.node is not screen and active.node is not screen.app:
            continue  # a widget's own keys (cursor moves, editing)
        display = screen.app.get_key_display(binding) if binding.key == key else key
        what = binding.tooltip or binding.description or binding.action
        if (display, what) in seen:
            continue
        seen.add((display, what))
        if not active.enabled:
            what += " (not now)"
        row = (display, what, binding.id or "")
        (own if active.node is screen else everywhere).append(row)
    palette = screen.app.get_key_display(Binding(screen.app.COMMAND_PALETTE_BINDING, ""))
    everywhere.append((palette, "command palette: screens and actions", ""))
    extra = [(key, what, "") for key, what in getattr(screen, "HELP_KEYS", [])]
    own.sort(key=lambda row: not row[2])  # the screen's own keys, then tab & co.
    return [(f"This screen: {screen_title(screen)}", extra + own), ("Everywhere", everywhere)]


def binding_rows(screen: Screen) -> list[Row]:
    """Every row of the help, sections flattened (for tests and logs)."""
    return [row for _title, rows in help_sections(screen) for row in rows]


class HelpScreen(ModalScreen[None]):
    """Keys of the screen below; ids are what `tui.keymap` in settings remaps."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help.close"),
        Binding("question_mark", "dismiss", "Close", show=False, id="help.close_help"),
    ]

    def __init__(self, below: Screen) -> None:
        super().__init__()
        self.sections = help_sections(below)
        self.rows = [row for _title, rows in self.sections for row in rows]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label(
                "Keys  (remap any id with [tui] keymap in settings; screen keys never shadow "
                "the global ones)",
                id="help-title",
                markup=False,
            )
            with VerticalScroll(id="help-table"):
                yield Static(self.renderable(), id="help-keys")
            yield Label("", id="help-hint")

    def renderable(self) -> Group:
        """Each section: its title, then key, what it does, binding id (dim)."""
        parts: list[RenderableType] = []
        for title, rows in self.sections:
            parts.append(Text(f"\n{title}" if parts else title, style="bold reverse"))
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold", no_wrap=True, min_width=8)
            table.add_column(ratio=1)
            table.add_column(style="dim", no_wrap=True)
            for key, what, binding_id in rows:
                table.add_row(key, what, binding_id)
            parts.append(table)
        return Group(*parts)

    def on_mount(self) -> None:
        close = key_for(self, "help.close")
        palette = self.app.get_key_display(Binding(self.app.COMMAND_PALETTE_BINDING, ""))
        self.query_one("#help-hint", Label).update(
            f"{close} closes · {palette} opens the command palette"
        )
