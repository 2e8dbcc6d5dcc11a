"""`noema lesson generate CONCEPT`, `noema lesson review NOTE`, `noema lesson savings`.

`generate` writes a lesson from a concept note (its related concepts and quotes are the
sources), self-reviews it and has it judged; `review` runs the checks, the self-review and
the judges on an existing lesson note. When the judges escalate, the terminal asks accept /
regenerate / judge again / edit (in $EDITOR) / reject / later (`--accept`, `--reject` and
`--edit FILE` answer it up front, `--no-input` leaves the run waiting for the TUI). `savings` reports judge tokens spent against judging every lesson fully.
Exit codes: 0 done or waiting, 1 failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from tui.commands import (
    Ask,
    CommandError,
    err,
    open_flows,
    plain,
    require_vault,
    run_async,
    settings_from,
)
from tui.commands.editing import edit_text, editor, read_edit

if TYPE_CHECKING:
    from core.events import RunEvent
    from core.settings import Settings
    from local_llm import Backend

CHOICES = {"a": "accept", "r": "regenerate", "j": "judge", "e": "edit", "x": "reject", "l": "later"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lesson", help="generate, review and judge lessons", description=plain(__doc__)
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    gen = actions.add_parser("generate", help="write a lesson from a concept note")
    gen.add_argument("concept", metavar="CONCEPT", help="concept note title or vault path")
    gen.add_argument("--language", default="", help="lesson language (default: the note's)")
    gen.add_argument("--objective", action="append", default=[], help="a learning objective")
    gen.add_argument("--sections", type=int, default=0, help="number of sections")
    review = actions.add_parser("review", help="check, self-review and judge a lesson note")
    review.add_argument("note", metavar="NOTE", help="the lesson note (vault-relative path)")
    for sub in (gen, review):
        mode = sub.add_mutually_exclusive_group()
        mode.add_argument("--accept", action="store_true", help="accept when escalated")
        mode.add_argument("--reject", action="store_true", help="reject when escalated")
        mode.add_argument(
            "--edit",
            metavar="FILE",
            help="when escalated, replace the lesson with FILE and judge it again",
        )
        mode.add_argument("--no-input", action="store_true", help="leave escalations waiting")
        sub.set_defaults(func=run)
    savings = actions.add_parser("savings", help="judge tokens saved, and what was caught")
    savings.add_argument("--json", action="store_true", help="print the report as JSON")
    savings.set_defaults(func=run_savings)


def run(args: argparse.Namespace, backend: Backend | None = None, ask: Ask | None = None) -> int:
    """The `generate` / `review` handler; `backend` and `ask` are for tests."""
    settings = settings_from(args)
    require_vault(settings)
    if getattr(args, "edit", None):
        read_edit(args.edit)  # a missing or empty file is refused before any run exists
    if getattr(args, "concept", None):
        data: dict[str, object] = {
            "mode": "generate",
            "concept": args.concept,
            "language": args.language,
            "objectives": args.objective,
            "sections": args.sections,
        }
    else:
        data = {"mode": "review", "note_path": args.note}
    return run_async(_drive(settings, data, args, backend, ask or input))


async def _drive(
    settings: Settings,
    data: dict[str, object],
    args: argparse.Namespace,
    backend: Backend | None,
    ask: Ask,
) -> int:
    from core.flows.lesson.driver import drive_lesson, start_lesson

    services = open_flows(settings, backend=backend)
    async with services:
        if services.vault is not None:
            await services.vault.index.sync_async()
        try:
            run_id = start_lesson(services, data)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        outcome = await drive_lesson(services, run_id, Decider(args, ask), _progress)
    if outcome.status == "failed":
        raise CommandError(
            f"the lesson run failed: {outcome.error.splitlines()[-1] if outcome.error else ''}"
        )
    if outcome.status == "awaiting_review":
        print(f"run {run_id[:8]} awaits your review (noema runs; resume in the TUI)")
        return 0
    state = outcome.state
    print(f"{state.get('lesson_path', '')}: {state.get('status', '')}")
    report = outcome.savings
    print(f"judge tokens {report['judge_tokens']} (judging fully: {report['full_judge_tokens']})")
    return 0


def _progress(event: RunEvent) -> None:
    from core.events import Progress

    if isinstance(event, Progress) and event.data.get("phase"):
        data = event.data
        err(f"{data['phase']}: {data.get('status', '')} ({data.get('tokens', 0)} tokens)")


EditLesson = Callable[[str, Ask], str | None]
"""Edits the lesson (`edit_in_editor`; tests script it): the edited text, or None."""


class Decider:
    """Answers the escalation at the terminal (or from the flags)."""

    def __init__(self, args: argparse.Namespace, ask: Ask, edit: EditLesson | None = None) -> None:
        self.args, self.ask = args, ask
        self.edit = edit or edit_in_editor
        self.edit_sent = False

    async def __call__(self, payload: Mapping[str, object]) -> dict[str, str] | None:
        from core.flows.lesson.state import LessonReview

        review = LessonReview.model_validate(payload)
        print(f"The judges escalated: {review.cascade.reason if review.cascade else 'no verdict'}")
        if self.args.accept:
            return {"action": "accept"}
        if getattr(self.args, "reject", False):
            return {"action": "reject"}
        if getattr(self.args, "edit", None):
            if self.edit_sent:  # the edited lesson escalated again: the user decides
                print("The edited lesson was escalated again; it waits for your review.")
                return None
            self.edit_sent = True
            return {"action": "edit", "content": read_edit(self.args.edit)}
        if self.args.no_input or (self.ask is input and not sys.stdin.isatty()):
            return None
        while True:
            answer = self.ask(
                "[a]ccept / [r]egenerate / [j]udge again / [e]dit / re[x]ject / [l]ater: "
            )
            action = CHOICES.get(answer.strip().lower()[:1], answer.strip().lower())
            if action == "later":
                return None
            if action == "edit":
                text = self.edit(review.lesson, self.ask)
                if text is not None and text.strip():
                    return {"action": "edit", "content": text}
                err("no edit: the lesson is unchanged")
                continue
            if action in CHOICES.values():
                return {"action": action}
            err("please answer a, r, j, e, x or l")


def edit_in_editor(lesson: str, ask: Ask) -> str | None:
    """The lesson edited in $VISUAL / $EDITOR, or read from a file the user names when no
    editor is set. None when nothing changed."""
    if editor():
        return edit_text(lesson)
    path = ask("no $EDITOR set: path of a file with the edited lesson (empty cancels): ")
    return read_edit(path.strip()) if path.strip() else None


def run_savings(args: argparse.Namespace) -> int:
    from core.flows.lesson.traces import lesson_rows, savings_report, savings_text
    from core.store import open_store

    settings = settings_from(args)
    store = open_store(settings)
    try:
        report = savings_report(store, settings=settings)
        rows = lesson_rows(store)
    finally:
        store.close()
    if args.json:
        print(json.dumps({"total": report, "lessons": rows}, ensure_ascii=False))
        return 0
    print(savings_text(report, rows))
    return 0
