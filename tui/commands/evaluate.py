"""`noema evaluate NOTE --criteria NAME` and `noema criteria validate|list`.

`evaluate` runs the rubric flow headless: it prints the evaluation and asks approve / revise
/ edit / later at the terminal (edit opens $EDITOR on the note's body). `--approve` approves
the first evaluation without asking; `--no-input` prints it and leaves the run waiting for
review (resume it in the TUI). Exit codes: 0 approved or waiting, 1 failed, 3 stopped at the
round limit.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
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
    vault_of,
)
from tui.commands.editing import edit_text, editor

if TYPE_CHECKING:
    from core.services import Services
    from core.settings import Settings
    from local_llm import Backend

EXIT_ROUND_LIMIT = 3
CHOICES = {"a": "approve", "r": "revise", "e": "edit", "l": "later", "y": "accept", "n": "reject"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="score a note against a rubric, then approve / revise / edit",
        description=plain(__doc__),
    )
    parser.add_argument(
        "note", metavar="NOTE", help="the note (vault-relative path, or a path inside the vault)"
    )
    parser.add_argument(
        "--criteria",
        metavar="NAME",
        help="criteria name or file (default: the note's rubric: key, else default)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--approve", action="store_true", help="approve the first evaluation without asking"
    )
    mode.add_argument(
        "--no-input", action="store_true", help="print the evaluation and leave the run waiting"
    )
    parser.set_defaults(func=run)

    criteria = subparsers.add_parser(
        "criteria",
        help="list or validate evaluation criteria files",
        description="List the available evaluation criteria (rubrics) or validate criteria "
        "files: the shipped ones, or the FILE given.",
    )
    actions = criteria.add_subparsers(title="actions", metavar="ACTION", required=True)
    validate = actions.add_parser(
        "validate", help="check criteria files (all shipped ones without FILE)"
    )
    validate.add_argument("files", nargs="*", metavar="FILE")
    validate.set_defaults(func=run_validate)
    listing = actions.add_parser("list", help="names of the available criteria")
    listing.set_defaults(func=run_list)


def run_validate(args: argparse.Namespace) -> int:
    from core.evaluation import BUILTIN_DIR, validate_criteria_files

    files = [Path(f) for f in args.files]
    for path in files:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
    problems = validate_criteria_files(files)
    for problem in problems:
        print(problem)
    checked = len(files) or len(list(BUILTIN_DIR.glob("*.json")))
    if problems:
        err(f"{len(problems)} problem(s) in {checked} file(s)")
        return 1
    print(f"{checked} criteria file(s) valid")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from core.evaluation import available_criteria

    settings = settings_from(args)
    for name in available_criteria([settings.data_dir / "criteria"]):
        print(name)
    return 0


def vault_relative(note: str, root: Path) -> str:
    """A note argument as a vault-relative POSIX path."""
    path = Path(note).expanduser()
    if path.exists() or path.is_absolute():
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError as exc:
            raise CommandError(f"{note} is not inside the vault {root}") from exc
    return Path(note).as_posix()


def run(args: argparse.Namespace, backend: Backend | None = None, ask: Ask | None = None) -> int:
    """The `evaluate` handler; `backend` and `ask` are for tests (scripted model, answers)."""
    settings = settings_from(args)
    note = vault_relative(args.note, require_vault(settings))
    check_input(settings, note, args.criteria)  # before any run exists: a typo leaves nothing
    return run_async(evaluate(settings, note, args, backend, ask or input))


def check_input(settings: Settings, note: str, criteria: str | None) -> None:
    """The note exists in the vault and the criteria name or file exists."""
    from core.evaluation import available_criteria

    root = require_vault(settings)
    if not (root / note).is_file():
        raise CommandError(f"no note {note} in the vault {root}" + suggestion(root, note))
    if criteria is None:
        return
    known = available_criteria([settings.data_dir / "criteria"])
    path = Path(criteria).expanduser()
    if criteria not in known and not (path.suffix == ".json" and path.is_file()):
        raise CommandError(f"no criteria {criteria!r}; available: {', '.join(known)}")


def suggestion(root: Path, note: str) -> str:
    """'; did you mean X?' for the closest note name, or ''."""
    import difflib

    names = [p.relative_to(root).as_posix() for p in root.rglob("*.md")]
    close = difflib.get_close_matches(note, names, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


async def evaluate(
    settings: Settings, note: str, args: argparse.Namespace, backend: Backend | None, ask: Ask
) -> int:
    from core.flows.rubric.driver import review_note

    services = open_flows(settings, backend=backend)
    async with services:
        decide = Decider(services, note, args, ask)
        outcome = await review_note(services, note, args.criteria, decide, err)
    if outcome.status == "failed" or outcome.state.get("outcome") == "failed":
        messages = outcome.state.get("messages") or []
        raise CommandError(outcome.error or (messages[-1] if messages else "the evaluation failed"))
    if outcome.status == "awaiting_review":
        print(f"run {outcome.run_id[:8]} awaits your review (noema runs; resume in the TUI)")
        return 0
    for message in outcome.state.get("messages", [])[-1:]:
        print(message)
    return EXIT_ROUND_LIMIT if outcome.state.get("outcome") == "round_limit" else 0


class Decider:
    """Answers the flow's interrupts at the terminal."""

    def __init__(self, services: Services, note: str, args: argparse.Namespace, ask: Ask):
        self.services, self.note, self.args, self.ask = services, note, args, ask

    async def __call__(self, payload: Mapping[str, object]) -> dict[str, str] | str | None:
        from core.evaluation.report import render_text
        from core.flows.rubric.state import RevisionReview, review_of

        review = review_of(payload)
        if isinstance(review, RevisionReview):
            print(review.diff or "(no changes)")
            return self.choose("accept the revision? [y]es / [n]o: ", ("accept", "reject"))
        print(render_text(review.evaluation))
        print(f"round {review.round} of {review.max_rounds}")
        if self.args.approve:
            return {"action": "approve"}
        if self.args.no_input or (self.ask is input and not sys.stdin.isatty()):
            return None
        while True:
            action = self.choose(
                "[a]pprove / [r]evise / [e]dit / [l]ater: ", ("approve", "revise", "edit", "later")
            )
            if action == "later":
                return None
            if action == "approve":
                return {"action": "approve"}
            if action == "revise":
                return {
                    "action": "revise",
                    "feedback": self.ask("what should change? (optional): ").strip(),
                }
            edited = self.edit()
            if edited is not None:
                return {"action": "edit", "content": edited}

    def choose(self, prompt: str, allowed: tuple[str, ...]) -> str:
        while True:
            answer = self.ask(prompt).strip().lower()
            choice = CHOICES.get(answer[:1], answer)
            if choice in allowed:
                return choice
            err(f"please answer one of: {', '.join(allowed)}")

    def edit(self) -> str | None:
        """The note's body edited in $EDITOR; None when unchanged or no editor is set."""
        if not editor():
            err("set $EDITOR to edit the note here, or edit it in the TUI")
            return None
        edited = edit_text(vault_of(self.services).writer.read(self.note).body)
        if edited is None:
            err("no changes")
        return edited
