"""Widgets and renderers for evaluations (core.evaluation results) and text editing modals.

Used by the rubric screen; any review screen that shows an `EvaluationResult` can reuse them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Unpack

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Label, TextArea

from core.evaluation.answer import NO_REMARK
from tui.drafts import Drafts
from tui.keys import key_for
from tui.screens.base import NoemaModal
from tui.text import clip
from tui.widgets.chat_markdown import rich_markdown
from tui.widgets.options import WidgetOptions

if TYPE_CHECKING:
    from core.flows.rubric.state import RubricReview

BAR_WIDTH = 20
NAME_WIDTH = 28
SCORE_WIDTH = BAR_WIDTH + len(" 0.00 / 0.00")
"""The score column: a bar, then the score and its threshold."""


def score_bar(c: dict[str, Any], width: int = BAR_WIDTH) -> Text:
    """A bar of the criterion's score with its threshold marked (│), then the numbers."""
    score, threshold = float(c["score"]), float(c["passing_threshold"])
    filled, mark = round(score * width), min(width - 1, round(threshold * width))
    colour = "green" if c["passed"] else "red"
    text = Text()
    for cell in range(width):
        if cell == mark:
            text.append("│", style="bold yellow")
        else:
            text.append("█" if cell < filled else "░", style=colour if cell < filled else "grey37")
    text.append(f" {score:.2f} / {threshold:.2f}", style=colour)
    return text


def criterion_detail(c: dict[str, Any]) -> Group:
    """One criterion in full: name, bar, critical mark, then the judge's rationale and
    issues (the model's text, rendered as Markdown)."""
    head = Text().append(c["name"], style="bold").append("  ").append_text(score_bar(c))
    if c.get("is_critical"):
        head.append("  ★ critical", style="bold magenta")
    parts: list[RenderableType] = [head]
    if c.get("rationale"):
        parts.append(rich_markdown(c["rationale"]))
    elif c.get("no_remark"):
        parts.append(Text(f"({NO_REMARK})", style="dim italic"))
    issues = [
        f"{issue['what']} ({issue['where']})" if issue.get("where") else issue["what"]
        for issue in c.get("issues", [])
    ]
    if issues:
        parts.append(rich_markdown(bullets(issues)))
    return Group(*parts)


def bullets(items: list[str]) -> str:
    """`items` as a Markdown list (an item's own line breaks stay inside its item)."""
    return "\n".join("- " + str(item).strip().replace("\n", "\n  ") for item in items)


class CriteriaTable(DataTable):
    """One row per criterion (every one visible at once); the highlighted one is detailed
    by the screen."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.criteria: list[dict[str, Any]] = []

    def on_mount(self) -> None:
        self.add_column("criterion", width=NAME_WIDTH)
        # a fixed width: with an automatic one the header was sometimes drawn at the width
        # it had before the rows came (a race in the table's caches, seen in snapshot tests)
        self.add_column("score", width=SCORE_WIDTH)
        self.add_column("")

    def show(self, criteria: list[dict[str, Any]]) -> None:
        row = self.cursor_row
        self.clear()
        self.criteria = list(criteria)
        for n, c in enumerate(self.criteria):
            marks = Text("★ critical", style="bold magenta") if c.get("is_critical") else Text()
            issues = len(c.get("issues", []))
            if issues:
                marks.append(f"  {issues} issue{'s' if issues > 1 else ''}", style="dim")
            self.add_row(clip(c["name"], NAME_WIDTH), score_bar(c), marks, key=str(n))
        if self.row_count:
            self.move_cursor(row=min(max(row, 0), self.row_count - 1), animate=False)

    def current(self) -> dict[str, Any] | None:
        if not self.criteria or not 0 <= self.cursor_row < len(self.criteria):
            return None
        return self.criteria[self.cursor_row]


def remarks_text(evaluation: dict[str, Any]) -> Group:
    """Strengths, weaknesses, suggestions and the overall feedback (the model's text,
    rendered as Markdown)."""
    parts: list[RenderableType] = []
    for title, key, style in (
        ("Strengths", "strengths", "green"),
        ("Weaknesses", "weaknesses", "red"),
        ("Suggestions", "suggestions", "cyan"),
    ):
        items = evaluation.get(key) or []
        if items:
            parts += [Text(title, style=f"bold {style}"), rich_markdown(bullets(items))]
    if evaluation.get("feedback"):
        parts += [Text("Feedback", style="bold"), rich_markdown(evaluation["feedback"])]
    parts += [Text(f"({note})", style="dim italic") for note in evaluation.get("notes") or []]
    return Group(*parts)


def verdict_text(review: RubricReview) -> Text:
    """The headline: verdict, overall score against the threshold, rubric, round."""
    ev = review.evaluation.model_dump(mode="json")
    passed = ev["passed"]
    text = Text(
        "PASSED " if passed else "NOT PASSED ", style="bold green" if passed else "bold red"
    )
    text.append(f"overall {ev['overall_score']:.2f} (threshold {ev['passing_threshold']:.2f})")
    text.append(f"   rubric {ev['criteria_id']}@{ev['criteria_version']}", style="dim")
    text.append(f"   round {review.round} of {review.max_rounds}", style="dim")
    if ev.get("failed_critical"):
        text.append(
            f"\ncritical below threshold: {', '.join(ev['failed_critical'])}", style="bold red"
        )
    return text


class TextModal(NoemaModal[str | None]):
    """Edit a text (the note body, or feedback for a revision): ctrl+s sends it, escape closes.

    With a `draft` key, what was typed survives escape, leaving the screen and quitting
    (`tui.drafts`): the box opens again with it, until it is sent or discarded on purpose.
    """

    DEFAULT_CSS = """
    TextModal { align: center middle; }
    TextModal > Vertical { width: 90%; height: 80%; border: thick $accent; background: $surface; }
    TextModal TextArea { height: 1fr; }
    TextModal #modal-note { color: $text-muted; }
    TextModal Horizontal { height: auto; align-horizontal: right; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Send", id="rubric.modal.save"),
        Binding("escape", "cancel", "Close (keeps the draft)", id="rubric.modal.cancel"),
        Binding("f8", "discard", "Discard draft", id="rubric.modal.discard"),
    ]

    def __init__(self, title: str, text: str = "", draft: str | None = None) -> None:
        super().__init__()
        self.title_text, self.text, self.draft = title, text, draft
        kept = self.drafts.get(draft) if draft else None
        self.initial = kept if kept is not None else text
        self.restored = self.initial != text

    @property
    def drafts(self) -> Drafts:
        """The app's drafts (what was typed and not sent yet)."""
        return self.app.drafts

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="modal-title", markup=False)
            yield Label("", id="modal-note")
            yield TextArea(self.initial, id="modal-text")
            with Horizontal():
                yield Button("Send", variant="primary", id="modal-save")
                yield Button("Discard draft", id="modal-discard")
                yield Button("Close", id="modal-cancel")

    def on_mount(self) -> None:
        """Labels name the keys bound now (after the keymap)."""
        save, discard, close = (
            key_for(self, f"rubric.modal.{name}") for name in ("save", "discard", "cancel")
        )
        self.query_one("#modal-save", Button).label = f"Send ({save})"
        self.query_one("#modal-discard", Button).label = f"Discard draft ({discard})"
        keeps = ", keeps the draft" if self.draft else ""
        self.query_one("#modal-cancel", Button).label = f"Close ({close}{keeps})"
        if self.restored:
            self.query_one("#modal-note", Label).update(
                f"Your unsent draft is back · {discard} discards it"
            )
        self.query_one("#modal-discard", Button).display = bool(self.draft)
        area = self.query_one(TextArea)
        if self.restored:  # go on typing where the draft ends
            area.move_cursor(area.document.end)
        area.focus()

    def keep_draft(self) -> None:
        if not self.draft:
            return
        text = self.query_one(TextArea).text
        if text == self.text:
            self.drafts.discard(self.draft)
        else:
            self.drafts.keep(self.draft, text)

    def action_save(self) -> None:
        if self.draft:
            self.drafts.discard(self.draft)
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.keep_draft()
        self.dismiss(None)

    def action_discard(self) -> None:
        """Throw the draft away on purpose: the box shows the original text again."""
        if self.draft:
            self.drafts.discard(self.draft)
        self.query_one(TextArea).load_text(self.text)
        self.query_one("#modal-note", Label).update("Draft discarded.")

    @on(Button.Pressed, "#modal-save")
    def _save(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#modal-discard")
    def _discard(self) -> None:
        self.action_discard()

    @on(Button.Pressed, "#modal-cancel")
    def _cancel(self) -> None:
        self.action_cancel()
