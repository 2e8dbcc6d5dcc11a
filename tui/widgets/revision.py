"""The model's proposed revision of a note, as a question: what changed, the revised text in
full, then `y` (accept and evaluate again) or `n` (reject: back to the evaluation).

A dialog's own keys come first while it is open (y/n answer it); `esc` leaves the question
waiting, and the rubric screen opens it again with its "view revision" key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from tui.keys import key_for

if TYPE_CHECKING:
    from core.flows.rubric.state import RevisionReview


def revision_renderable(review: RevisionReview) -> Group:
    """The diff of the proposal, then the revised text."""
    parts: list[RenderableType] = [
        Text("Changes", style="bold"),
        Syntax(review.diff or "(no changes)", "diff"),
    ]
    if review.proposed:
        parts += [Text("\nRevised text", style="bold"), Text(review.proposed)]
    return Group(*parts)


class RevisionModal(ModalScreen[str | None]):
    """Dismissed with "accept", "reject", or None (decide later)."""

    DEFAULT_CSS = """
    RevisionModal { align: center middle; }
    RevisionModal > Vertical { width: 95%; height: 90%; border: thick $accent; background: $surface; }
    RevisionModal #revision-title { text-style: bold; padding: 0 1; }
    RevisionModal #revision-description { padding: 0 1; color: $text-muted; }
    RevisionModal VerticalScroll { height: 1fr; padding: 0 1; }
    RevisionModal Horizontal { height: auto; align-horizontal: right; }
    """
    BINDINGS = [
        Binding("y", "answer('accept')", "Accept and evaluate again", id="rubric.accept"),
        Binding("n", "answer('reject')", "Reject", id="rubric.reject"),
        Binding("escape", "later", "Decide later", id="rubric.revision.later"),
    ]

    def __init__(self, review: RevisionReview) -> None:
        super().__init__()
        self.review = review

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.review.title or "Proposed revision", id="revision-title", markup=False)
            yield Label(self.review.description, id="revision-description", markup=False)
            with VerticalScroll():
                yield Static(revision_renderable(self.review), id="revision-text")
            with Horizontal():
                yield Button("Accept", variant="primary", id="revision-accept")
                yield Button("Reject", id="revision-reject")
                yield Button("Later", id="revision-later")

    def on_mount(self) -> None:
        for name, binding in (
            ("accept", "rubric.accept"),
            ("reject", "rubric.reject"),
            ("later", "rubric.revision.later"),
        ):
            button = self.query_one(f"#revision-{name}", Button)
            button.label = f"{button.label} ({key_for(self, binding)})"
        self.query_one(VerticalScroll).focus()

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)

    def action_later(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#revision-accept")
    def _accept(self) -> None:
        self.dismiss("accept")

    @on(Button.Pressed, "#revision-reject")
    def _reject(self) -> None:
        self.dismiss("reject")

    @on(Button.Pressed, "#revision-later")
    def _later(self) -> None:
        self.dismiss(None)
