"""The self-review panel (badge, automatic fixes, issues, the fix as a diff) and the judge
panel (verdict, each judge's score and confidence, scores per criterion)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core.flows.lesson.document import unified_diff
from tui.text import clip

SEVERITY_STYLE = {"CRITICAL": "bold red", "FIXABLE": "yellow", "COMPLEX": "magenta", "INFO": "cyan"}


def badge(review: dict[str, Any] | None) -> Text:
    if not review:
        return Text("Self-review not run yet", style="dim")
    if review.get("not_reviewed"):
        text = Text(" ⚠ Not reviewed ", style="bold black on red")
        text.append(f"  {review['not_reviewed']}", style="bold")
        return text.append("\nSent to the judges flagged (FLAG_TO_JUDGE)", style="dim")
    if review.get("passed"):
        text = Text().append(" ✓ Passed ", style="bold black on green")
    else:
        text = Text().append(" ⚠ Issues found ", style="bold black on yellow")
    text.append(f"  {review.get('decision', '')}", style="bold")
    if review.get("self_fix_applied"):
        text.append("\nAutomatic fixes applied", style="bold green")
        if review.get("overridden_by_code"):
            text.append(f" ({review['overridden_by_code']})", style="dim")
    elif review.get("overridden_by_code"):
        text.append(f"\nCode overrode the model: {review['overridden_by_code']}", style="dim")
    text.append(f"\n{review.get('tokens_used', 0)} tokens", style="dim")
    return text


def issue_label(issue: dict[str, Any]) -> Text:
    style = SEVERITY_STYLE.get(issue.get("severity", ""), "")
    text = Text().append(f"{issue.get('severity', '')[:4]:<4} ", style=style)
    text.append(f"{issue.get('type', '')}", style="bold")
    if issue.get("location"):
        text.append(f" @ {issue['location']}", style="italic")
    text.append(f"\n  {issue.get('description', '')}", style="dim")
    return text


class SelfReviewPanel(Vertical):
    """Badge, issues (select one to jump to it in the preview) and the self-fix diff."""

    DEFAULT_CSS = """
    SelfReviewPanel { height: auto; }
    SelfReviewPanel OptionList { height: auto; max-height: 10; }
    SelfReviewPanel #sr-diff { height: auto; max-height: 14; }
    """

    class IssueSelected(Message):
        def __init__(self, location: str) -> None:
            super().__init__()
            self.location = location

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.issues: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static(badge(None), id="sr-badge")
        yield OptionList(id="sr-issues")
        yield Static("", id="sr-diff")

    def show(self, review: dict[str, Any] | None, before: str = "", after: str = "") -> None:
        self.query_one("#sr-badge", Static).update(badge(review))
        self.issues = list((review or {}).get("issues", []))
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [Option(issue_label(i), id=f"issue-{n}") for n, i in enumerate(self.issues)]
        )
        diff = ""
        if review and review.get("self_fix_applied") and before and after and before != after:
            diff = unified_diff(before, after)
        self.query_one("#sr-diff", Static).update(
            Group(Text("Self-fix", style="bold"), Syntax(diff, "diff")) if diff else ""
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        index = int(str(event.option.id).removeprefix("issue-"))
        self.post_message(self.IssueSelected(self.issues[index].get("location", "")))


def judge_text(
    cascade: dict[str, Any] | None,
    results: list[dict[str, Any]],
    note: str = "",
    width: int = 52,
) -> Text:
    """The verdict, the judges that ran, and the scores per criterion, fitted to `width`;
    `note` (what the judge setup is worth, e.g. one model in every judge role) comes first."""
    head = Text().append(f"Note: {note}\n", style="yellow") if note else Text()
    if not cascade:
        return head + Text("Not judged yet", style="dim")
    colour = {"accept": "green", "fix": "yellow", "regenerate": "red", "escalate": "magenta"}
    text = head.append(
        f"Judge: {cascade['decision'].upper()}", style=f"bold {colour.get(cascade['decision'], '')}"
    )
    text.append(f"  score {cascade['score']:.2f}  ({cascade.get('reason', '')})\n", style="dim")
    for vote in cascade.get("votes", []):
        text.append(
            f"  {clip(vote['role'], 16):<16} {vote['score']:.2f}  confidence {vote['confidence']:.2f}\n"
        )
    names = {c["id"]: c["name"] for r in results for c in r.get("criteria", [])}
    bar = 20 if width >= 54 else 8
    name_width = max(10, min(24, width - bar - 9))
    for cid, score in cascade.get("scores", {}).items():
        filled = round(score * bar)
        text.append(f"  {clip(names.get(cid, cid), name_width):<{name_width}} ")
        text.append("█" * filled, style="green" if score >= 0.6 else "red")
        text.append("░" * (bar - filled), style="grey37").append(f" {score:.2f}\n")
    return text
