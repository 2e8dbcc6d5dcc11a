"""Widgets and renderers for evaluations (core.evaluation results) and text editing modals.

Used by the rubric screen; any review screen that shows an `EvaluationResult` can reuse them.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

BAR_WIDTH = 30


def criterion_text(c: dict[str, Any], width: int = BAR_WIDTH) -> Text:
    """One criterion: name, a bar of the score with the threshold marked, numbers, remarks."""
    score, threshold = float(c["score"]), float(c["passing_threshold"])
    filled, mark = round(score * width), min(width - 1, round(threshold * width))
    colour = "green" if c["passed"] else "red"
    text = Text(f"{c['name'][:26]:<27}")
    for cell in range(width):
        if cell == mark:
            text.append("│", style="bold yellow")
        else:
            text.append("█" if cell < filled else "░", style=colour if cell < filled else "grey37")
    text.append(f" {score:.2f} / {threshold:.2f}", style=colour)
    if c.get("is_critical"):
        text.append("  ★ critical", style="bold magenta")
    if c.get("rationale"):
        text.append(f"\n    {c['rationale']}", style="dim")
    for issue in c.get("issues", []):
        where = f" ({issue['where']})" if issue.get("where") else ""
        text.append(f"\n    • {issue['what']}{where}", style="italic")
    return text


def remarks_text(evaluation: dict[str, Any]) -> Text:
    """Strengths, weaknesses, suggestions and the overall feedback."""
    text = Text()
    for title, key, style in (
        ("Strengths", "strengths", "green"),
        ("Weaknesses", "weaknesses", "red"),
        ("Suggestions", "suggestions", "cyan"),
    ):
        items = evaluation.get(key) or []
        if items:
            text.append(f"{title}\n", style=f"bold {style}")
            for item in items:
                text.append(f"  • {item}\n")
    if evaluation.get("feedback"):
        text.append("Feedback\n", style="bold").append(f"  {evaluation['feedback']}\n")
    return text


def verdict_text(payload: dict[str, Any]) -> Text:
    """The headline: verdict, overall score against the threshold, rubric, round."""
    ev = payload["evaluation"]
    passed = ev["passed"]
    text = Text(
        "PASSED " if passed else "NOT PASSED ", style="bold green" if passed else "bold red"
    )
    text.append(f"overall {ev['overall_score']:.2f} (threshold {ev['passing_threshold']:.2f})")
    text.append(f"   rubric {ev['criteria_id']}@{ev['criteria_version']}", style="dim")
    text.append(
        f"   round {payload.get('round', 1)} of {payload.get('max_rounds', 1)}", style="dim"
    )
    if ev.get("failed_critical"):
        text.append(
            f"\ncritical below threshold: {', '.join(ev['failed_critical'])}", style="bold red"
        )
    return text


class TextModal(ModalScreen[str | None]):
    """Edit a text (the note body, or feedback for a revision): ctrl+s saves, escape cancels."""

    DEFAULT_CSS = """
    TextModal { align: center middle; }
    TextModal > Vertical { width: 90%; height: 80%; border: thick $accent; background: $surface; }
    TextModal TextArea { height: 1fr; }
    TextModal Horizontal { height: auto; align-horizontal: right; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="rubric.modal.save"),
        Binding("escape", "cancel", "Cancel", id="rubric.modal.cancel"),
    ]

    def __init__(self, title: str, text: str = "") -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="modal-title")
            yield TextArea(self.text, id="modal-text")
            with Horizontal():
                yield Button("Save (ctrl+s)", variant="primary", id="modal-save")
                yield Button("Cancel (esc)", id="modal-cancel")

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#modal-save")
    def _save(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#modal-cancel")
    def _cancel(self) -> None:
        self.action_cancel()
