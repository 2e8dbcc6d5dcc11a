"""The study plan beside the chat: mastery bar, steps with live statuses, plan-change notice."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Unpack

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from tui.widgets.options import WidgetOptions

ICONS = {
    "pending": ("○", "grey50"),
    "in_progress": ("◐", "yellow"),
    "completed": ("●", "green"),
    "blocked": ("✖", "red"),
}
BAR = 24


def mastery_text(value: float, width: int = BAR) -> Text:
    """`Mastery ████░░░░ 42%`."""
    filled = round(max(0.0, min(1.0, value)) * width)
    colour = "green" if value >= 0.8 else "yellow" if value >= 0.4 else "red"
    return Text.assemble(
        ("Mastery ", "bold"),
        ("█" * filled, colour),
        ("░" * (width - filled), "grey37"),
        f" {value:.0%}",
    )


def plan_text(plan: Mapping[str, Any] | None) -> Text:
    """Each step with its status icon and counters; the current one in bold."""
    text = Text()
    todo = list((plan or {}).get("todo_list") or [])
    if not todo:
        return Text("no plan yet", style="dim")
    meta = (plan or {}).get("metadata") or {}
    text.append(f"Plan v{meta.get('plan_version', 1)}", style="bold")
    text.append(
        f"  (replans {meta.get('replan_count', 0)}/{meta.get('max_replans', 0)})\n", style="dim"
    )
    current = next((s for s in todo if s["status"] == "in_progress"), None) or next(
        (s for s in todo if s["status"] == "pending"), None
    )
    for i, step in enumerate(todo, 1):
        icon, style = ICONS.get(step["status"], ICONS["pending"])
        info = step.get("status_info") or {}
        bold = " bold" if step is current else ""
        text.append(f"{icon} ", style=style)
        text.append(f"{i}. {step['title']}", style=bold.strip() or None)
        text.append(
            f"  {info.get('questions_correct', 0)}/{info.get('questions_asked', 0)}\n", style="dim"
        )
    return text


class PlanPanel(Vertical):
    """Mastery, the plan, a notice when it changes, and the hints (toggled)."""

    DEFAULT_CSS = """
    PlanPanel { width: 44; border: round $primary; padding: 0 1; }
    PlanPanel > #notice { color: $warning; text-style: bold; height: auto; }
    PlanPanel > #hints { border-top: solid $primary; height: auto; margin-top: 1; }
    PlanPanel > #hints.hidden { display: none; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.border_title = "Plan"
        self.hints: list[str] = []
        self._shown: tuple[Any, float] | None = None
        self._step_lines = 0
        self._notice = ""

    def compose(self):
        yield Static(mastery_text(0.0), id="mastery")
        yield Static(plan_text(None), id="steps")
        yield Static("", id="notice")
        yield Static("", id="hints", classes="hidden")

    def show_plan(self, plan: Mapping[str, Any] | None, mastery: float) -> None:
        """Show the plan and mastery (nothing is redrawn when they did not change)."""
        if (plan, mastery) == self._shown:
            return
        old_plan, old_mastery = self._shown or (None, -1.0)
        self._shown = (plan, mastery)
        if mastery != old_mastery:  # one line whatever the value: no layout
            self.query_one("#mastery", Static).update(mastery_text(mastery), layout=False)
        if plan != old_plan:
            widget, steps = self.query_one("#steps", Static), plan_text(plan)
            width = widget.content_region.width or BAR + 16
            lines = len(steps.wrap(self.app.console, width))  # layout only if the height changes
            widget.update(steps, layout=lines != self._step_lines)
            self._step_lines = lines

    def notice(self, text: str) -> None:
        if text != self._notice:
            self._notice = text
            self.query_one("#notice", Static).update(text)

    def show_hints(self, hints: list[str]) -> None:
        if list(hints) == self.hints and self.hints:
            return
        self.hints = list(hints)
        body = "\n".join(f"• {h}" for h in hints) or "no hints for this question"
        self.query_one("#hints", Static).update(Text.assemble(("Hints\n", "bold"), body))

    def toggle_hints(self) -> bool:
        """Show or hide the hints; returns whether they are shown."""
        widget = self.query_one("#hints", Static)
        widget.toggle_class("hidden")
        return not widget.has_class("hidden")
