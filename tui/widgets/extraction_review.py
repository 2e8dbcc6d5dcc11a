"""The review of an extraction: its items in one table, the selected item's detail, the
warnings and the critique log. Items can be marked dropped (and restored) before answering.

Row keys: `concept|ID`, `duplicate|CONCEPT_ID`, `relation|ID`, `attribution|CONCEPT_ID|QUOTE_ID`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Unpack

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import DataTable

from core.model_failures import skipped_line
from tui.widgets.chat_markdown import rich_markdown
from tui.widgets.options import WidgetOptions

if TYPE_CHECKING:
    from core.flows.extraction.state import ExtractionReview, ReviewConcept


def review_rows(review: ExtractionReview) -> list[tuple[str, str, str, str]]:
    """(key, section, item, detail) for every reviewable item, in report order."""
    rows = [
        (f"concept|{c.id}", "new concept", c.title, f"{len(c.quotes)} quote(s)")
        for c in review.concepts
    ]
    rows += [
        (
            f"duplicate|{d.concept_id}",
            "duplicate",
            f"{d.candidate} → {d.title}",
            f"{d.decided_by} {d.confidence:.2f}",
        )
        for d in review.duplicates
    ]
    rows += [
        (
            f"relation|{r.id}",
            "relation",
            f"{r.source_title} {r.type} {r.target_title}",
            f"inverse {r.inverse_type}",
        )
        for r in review.relations
    ]
    for a in review.attributions:
        for c in a.concepts:
            mark = " ★" if a.multi else ""
            rows.append(
                (
                    f"attribution|{c.id}|{a.quote_id}",
                    "quote",
                    f"[{a.quote_id}]{mark} → {c.title}",
                    "existing" if c.existing else "new",
                )
            )
    return rows


def drops_for(key: str, review: ExtractionReview) -> list[dict[str, str]]:
    """The drop items of the flow's resume value for one row."""
    kind, _, rest = key.partition("|")
    if kind in ("concept", "relation"):
        return [{"kind": kind, "id": rest}]
    if kind == "attribution":
        concept_id, _, quote_id = rest.partition("|")
        return [{"kind": "attribution", "concept_id": concept_id, "quote_id": quote_id}]
    link = next((e for e in review.existing if e.concept_id == rest), None)
    return [
        {"kind": "attribution", "concept_id": rest, "quote_id": q}
        for q in (link.quote_ids if link else [])
    ]


def concept_detail(c: ReviewConcept) -> Group:
    """A new concept in full; what the model wrote for its note is rendered as Markdown."""
    parts: list[RenderableType] = [
        Text(c.title, style="bold"),
        Text(c.short_summary, style="italic"),
    ]
    for label, text in (
        ("Resumen: ", c.summary),
        ("Concepto: ", c.concept),
        ("Análisis: ", c.analysis),
        ("Why: ", c.rationale),
    ):
        if text:
            parts.append(rich_markdown(text, label))
    quotes = Text("\n").join(Text(f"> [{q.id}] {q.text}", style="green") for q in c.quotes)
    return Group(*parts, quotes)


def detail_text(review: ExtractionReview, key: str) -> Text | Group:
    """Everything about one item."""
    kind, _, rest = key.partition("|")
    text = Text()
    if kind == "concept":
        return concept_detail(next(c for c in review.concepts if c.id == rest))
    if kind == "duplicate":
        d = next(d for d in review.duplicates if d.concept_id == rest)
        text.append(f"{d.candidate} is {d.title}\n", style="bold")
        text.append(f"decided by {d.decided_by}, confidence {d.confidence:.2f}\n{d.reasoning}\n")
        text.append(f"quotes handed over: {', '.join(d.quote_ids)}\n", style="green")
    elif kind == "relation":
        r = next(r for r in review.relations if r.id == rest)
        text.append(f"{r.source_title} —{r.type}→ {r.target_title}\n", style="bold")
        text.append(
            f"and back: {r.target_title} —{r.inverse_type}→ {r.source_title}\n", style="dim"
        )
        text.append(f"{r.explanation} (confidence {r.confidence:.2f})\n")
    else:
        concept_id, _, quote_id = rest.partition("|")
        a = next(a for a in review.attributions if a.quote_id == quote_id)
        text.append(f"[{quote_id}] {a.quote_text}\n", style="green")
        text.append("supports: " + ", ".join(c.title for c in a.concepts) + "\n")
    return text


KEYS = {"drop": "drop/restore", "feedback": "feedback", "approve": "approve", "abort": "abort"}
"""What each review key does, by action (the binding id is `extraction.<action>`)."""


def offered_actions(review: ExtractionReview) -> list[str]:
    """The answers the review takes now (every one for a payload that did not say)."""
    return review.actions if "actions" in review.model_fields_set else list(KEYS)


def review_headline(review: ExtractionReview, key: Callable[[str], str]) -> Text:
    """What is under review, the round, what was not done, and the keys that apply now
    (`key(action)` names the key bound to it now)."""
    counts = (
        f"{len(review.concepts)} new, {len(review.duplicates)} duplicates, "
        f"{len(review.relations)} relations"
    )
    text = Text(
        f"Review of {review.source_title} ({counts}; round {review.round}/{review.max_rounds})"
    )
    if review.notice:
        text.append(f"\n{review.notice}", style="bold yellow")
    if review.skipped:
        text.append(
            f"\n{len(review.skipped)} step(s) not done by the model (see Not done below)",
            style="bold red",
        )
    if review.round_notice:
        text.append(f"\n{review.round_notice}", style="bold yellow")
    actions = offered_actions(review)
    if "approve" not in actions:
        text.append("\nNothing to commit yet: give feedback or abort.", style="bold yellow")
    offered = ["drop", *actions]
    keys = [f"{key(action)}: {what}" for action, what in KEYS.items() if action in offered]
    return text.append("\n" + "   ".join(keys), style="dim")


def notes_text(review: ExtractionReview) -> Text:
    """What was not done (fallbacks), warnings (unattributed quotes, disconnected concepts,
    ...), the model's own notes and the critique log."""
    text = Text()
    if review.skipped:
        text.append(
            "Not done: no usable answer from the model; a fallback stands in\n", style="bold red"
        )
        for skipped in review.skipped:
            text.append(f"  ! {skipped_line(skipped.model_dump())}\n", style="red")
    text.append("Warnings\n", style="bold yellow")
    for q in review.unattributed:
        text.append(f"  • unattributed [{q.id}] {q.text}\n")
    for title in review.disconnected:
        text.append(f"  • disconnected: {title}\n")
    for warning in review.warnings:
        text.append(f"  • {warning}\n")
    if review.notes:
        text.append("The model's notes\n", style="bold")
        for note in review.notes:
            text.append(f"  • {note}\n")
    text.append("Critique log\n", style="bold cyan")
    for entry in review.critique_log:
        verdict = {True: "passed", False: "failed", None: "unavailable"}[entry.get("passed")]
        text.append(f"  round {entry.get('round')}: {verdict} — {entry.get('summary', '')}\n")
    return text


class ReviewTable(DataTable):
    """The review's items; dropped ones are struck through.

    The item column takes the width the others leave (long items end in "…"), so the last
    column is never cut to its first letters at the table's right edge (they looked like
    stray characters once a scrollbar appeared beside the table and narrowed it)."""

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.review: ExtractionReview | None = None
        self.dropped: set[str] = set()

    def show(self, review: ExtractionReview, dropped: set[str]) -> None:
        self.review, self.dropped = review, set(dropped)
        row = self.cursor_row
        rows = review_rows(review)
        self.clear(columns=True)
        for label, width in zip(("", "kind", "item", ""), self.widths(rows), strict=True):
            self.add_column(label, width=width)
        for key, section, item, detail in rows:
            gone = key in dropped
            style = "strike dim" if gone else ""
            self.add_row(
                "✗" if gone else " ",
                section,
                Text(item, style=style, overflow="ellipsis", no_wrap=True),
                Text(detail, style="dim"),
                key=key,
            )
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1))
        self.display = bool(self.row_count)

    def widths(self, rows: list[tuple[str, str, str, str]]) -> list[int]:
        """Column widths: the item column shrinks to what the table's width leaves."""
        natural = [
            max([cell_len(r[i]) for r in rows] + [len(h)])
            for i, h in enumerate(("", "kind", "item", ""))
        ]
        natural[0] = 1
        room = self.scrollable_content_region.width - 2 * self.cell_padding * len(natural)
        if room > 0:
            natural[2] = max(8, min(natural[2], room - natural[0] - natural[1] - natural[3]))
        return natural

    def on_resize(self) -> None:
        if self.review is not None:
            self.show(self.review, self.dropped)

    def clear(self, columns: bool = False) -> ReviewTable:
        if not columns:  # the screen clears the review: a resize must not bring it back
            self.review, self.dropped = None, set()
            self.display = False  # no empty box where the review was
        return super().clear(columns)

    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
