"""Choosing a model: which role the highlighted model becomes, and how models are listed."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from core.models import STANDARD_ROLES
from tui.screens.base import NoemaModal

ROLE_HELP = {
    "default": "every workflow's model",
    "judge": "scores lessons and evaluations",
    "judge_secondary": "the second judge, when the first is unsure",
    "embedding": "embeddings for search and synonym groups",
}


class RoleModal(NoemaModal):
    """`Use MODEL for which role?`; dismissed with the role, or None (escape)."""

    DEFAULT_CSS = """
    RoleModal { align: center middle; }
    RoleModal > Vertical { width: 90; height: auto; border: round $primary; padding: 0 1;
                           background: $surface; }
    RoleModal OptionList { height: auto; max-height: 12; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="model.role.cancel")]

    def __init__(self, model: str, current: dict[str, str]) -> None:
        super().__init__()
        self.model = model
        self.current = current
        """role -> the model it uses now."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Use [b]{self.model}[/b] for which role?  (enter: choose · esc: cancel)")
            yield OptionList(
                *(
                    Option(
                        f"{role:<16} {ROLE_HELP[role]}  (now {self.current.get(role, '-')})",
                        id=role,
                    )
                    for role in STANDARD_ROLES
                ),
                id="roles",
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


def short(model: str | None) -> str:
    """A model's name without its route prefix (`qwen2.5:7b` for `ollama_chat/qwen2.5:7b`)."""
    if not model:
        return "-"
    return model.split("/", 1)[1] if model.startswith(("ollama", "openai/")) else model


def size_text(size_bytes: int | None) -> str:
    """`2.0 GB`, `274 MB`; `-` when the server does not say."""
    if not size_bytes:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size_bytes >= scale:
            return (
                f"{size_bytes / scale:.1f} {unit}"
                if unit == "GB"
                else f"{size_bytes / scale:.0f} {unit}"
            )
    return f"{size_bytes} B"


async def server_models(llm: Any) -> list[Any]:
    """The models the default role's server has (`local_llm.catalog.ServerModel`s). A scripted
    model (tests of other parts) lists the names it was given."""
    from local_llm.catalog import ServerModel, list_server_models

    config, backend = llm.config("default"), llm.backend("default")
    if getattr(backend, "serves_any_model", False):
        return [ServerModel(name) for name in await backend.list_models(config)]
    return await list_server_models(config)
