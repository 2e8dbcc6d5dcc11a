"""Crash-sweep trials: kill a real `noema` process at a chosen step, recover with the CLI,
and compare the vault byte for byte with the state it must end in.

A trial kills the operation at its Nth crash point (NOEMA_CRASH_AT), optionally kills the
first recovery command too at its Mth point (a crash during the recovery), then runs the
recovery to its end. The vault must then hold exactly the files of the expected state (the
operation applied, or the original when the recovery is an undo), every folder as expected,
no temporary file anywhere, and the store must agree (no run left `running`, the commit or
the merge finished). Shared by tests/durability/test_crash_sweep.py (a sample of points) and
bench/crash_sweep.py (every point).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tests.durability.harness import KILLED, REVIEW, SOURCE, Workspace

_PROCESSED = re.compile(rb"processed_date: .*")


@dataclass
class Trial:
    """One trial's outcome."""

    name: str
    kills: int = 0
    """How many processes were killed (each at a distinct crash point of its operation)."""
    through: bool = False
    """The victim got through without reaching crash point N: the sweep is over."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def same_files(trial: Trial, got: Workspace, expected: dict[str, bytes], folders: set[str]) -> None:
    """The vault holds exactly `expected` (processed_date values aside: they are timestamps)."""
    files = got.files()
    normal = {k: _PROCESSED.sub(b"processed_date: X", v) for k, v in files.items()}
    wanted = {k: _PROCESSED.sub(b"processed_date: X", v) for k, v in expected.items()}
    for path in sorted(set(normal) | set(wanted)):
        if normal.get(path) != wanted.get(path):
            what = "missing" if path not in normal else "stray" if path not in wanted else "differs"
            trial.problems.append(f"{path}: {what}")
    if got.folders() != folders:
        trial.problems.append(f"folders: {sorted(got.folders() ^ folders)}")


def kill(trial: Trial, workspace: Workspace, n: int, *args: str) -> bool:
    """Run `noema ARGS` to be killed at crash point n; False when it got through instead."""
    result = workspace.cli(*args, NOEMA_CRASH_AT=str(n))
    if result.returncode == KILLED:
        trial.kills += 1
        return True
    if result.returncode != 0 and "Traceback" in result.stderr:
        trial.problems.append(f"{' '.join(args)} at {n}: {result.stderr.strip()[-300:]}")
    return False


def run(trial: Trial, workspace: Workspace, *args: str, codes: tuple[int, ...] = (0,)) -> str:
    """Run `noema ARGS` to its end; an unexpected exit code is a problem."""
    result = workspace.cli(*args)
    if result.returncode not in codes:
        trial.problems.append(
            f"{' '.join(args)} exit {result.returncode}: {(result.stderr or result.stdout)[-300:]}"
        )
    return result.stdout


# -- extraction commit ---------------------------------------------------------------------


@dataclass
class ExtractionCase:
    """A workspace whose extraction waits at its review, and the vault once it is committed."""

    template: Workspace
    run_id: str
    applied: dict[str, bytes]
    folders: set[str]


def extraction_trial(case: ExtractionCase, home: Path, n: int, m: int = 0) -> Trial:
    """Kill `noema review RUN --approve` at n, then `noema repair` at m (0: not), recover."""
    trial = Trial(f"extraction commit killed at {n}" + (f", repair at {m}" if m else ""))
    work = case.template.clone(home)
    if not kill(trial, work, n, "review", case.run_id, "--approve"):
        trial.through = True
        return trial
    if m:
        kill(trial, work, m, "repair")
    run(trial, work, "repair")
    status = work.query("SELECT status FROM runs WHERE id=?", (case.run_id,))[0][0]
    if status == "awaiting_review":  # killed before the answer was recorded: answer again
        run(trial, work, "review", case.run_id, "--approve")
    same_files(trial, work, case.applied, case.folders)
    commits = work.query("SELECT status FROM extraction_commits")
    runs = work.query("SELECT status FROM runs")
    if commits != [("done",)] or runs != [("done",)]:
        trial.problems.append(f"store: commits {commits}, runs {runs}")
    return trial


# -- merge apply ----------------------------------------------------------------------------


@dataclass
class MergeCase:
    """A workspace with an accepted review, its vault before, and after the apply."""

    template: Workspace
    original: dict[str, bytes]
    original_folders: set[str]
    applied: dict[str, bytes]
    applied_folders: set[str]


def merge_trial(
    case: MergeCase,
    home: Path,
    n: int,
    m: int = 0,
    *,
    undo: bool = False,
    killed: Workspace | None = None,
) -> Trial:
    """Kill `noema merges apply --yes` at n; then finish it (`--resume`) or roll it back
    (`undo`), that command itself killed at m first when m > 0. `killed`: a copy of a
    workspace already killed at n (a sweep tries both recoveries on one kill)."""
    recovery = ("merges", "undo", REVIEW) if undo else ("merges", "apply", REVIEW, "--resume")
    trial = Trial(f"merge apply killed at {n}, {recovery[1]}" + (f" killed at {m}" if m else ""))
    if killed is not None:
        work = killed.clone(home)  # its kill is counted where it happened
    else:
        work = case.template.clone(home)
        if not kill(trial, work, n, "merges", "apply", REVIEW, "--yes"):
            trial.through = True
            return trial
    if m:
        kill(trial, work, m, *recovery)
    if not undo:
        repair = run(trial, work, "repair", codes=(0, 1))
        if f"merges apply {REVIEW} --resume" not in repair and work.query(
            "SELECT status FROM normalization_reviews"
        ) != [("applied",)]:
            trial.problems.append(f"repair did not name the interrupted apply: {repair!r}")
    journal = work.query("SELECT status FROM merge_journals ORDER BY id DESC LIMIT 1")
    if journal != [("undone",) if undo else ("applied",)]:
        run(trial, work, *recovery)
    if undo:
        same_files(trial, work, case.original, case.original_folders)
    else:
        same_files(trial, work, case.applied, case.applied_folders)
    review = work.query("SELECT status FROM normalization_reviews")
    if review != [("pending",) if undo else ("applied",)]:
        trial.problems.append(f"review status {review}")
    return trial


def kill_apply(case: MergeCase, home: Path, n: int) -> Workspace | None:
    """A copy of the template whose `merges apply` was killed at n (None: it got through)."""
    work = case.template.clone(home)
    result = work.cli("merges", "apply", REVIEW, "--yes", NOEMA_CRASH_AT=str(n))
    return work if result.returncode == KILLED else None


def undo_trial(case: MergeCase, applied: Workspace, home: Path, n: int, m: int = 0) -> Trial:
    """Kill `noema merges undo` of a finished apply at n (and the next undo at m when m > 0),
    then undo again: the original vault."""
    trial = Trial(f"merge undo killed at {n}" + (f", the next undo at {m}" if m else ""))
    work = applied.clone(home)
    if not kill(trial, work, n, "merges", "undo", REVIEW):
        trial.through = True
        return trial
    if m:
        kill(trial, work, m, "merges", "undo", REVIEW)
    if work.query("SELECT status FROM merge_journals") != [("undone",)]:
        run(trial, work, "merges", "undo", REVIEW)
    same_files(trial, work, case.original, case.original_folders)
    if work.query("SELECT status FROM normalization_reviews") != [("pending",)]:
        trial.problems.append("review not pending after the undo")
    return trial


def reference_apply(template: Workspace, home: Path) -> Workspace:
    """The template with its merges applied by an uninterrupted process."""
    applied = template.clone(home)
    result = applied.cli("merges", "apply", REVIEW, "--yes")
    assert result.returncode == 0, result.stderr
    return applied


def reference_commit(template: Workspace, run_id: str, home: Path) -> Workspace:
    """The template with its extraction approved and committed by an uninterrupted process."""
    committed = template.clone(home)
    result = committed.cli("review", run_id, "--approve")
    assert result.returncode == 0, result.stderr
    assert SOURCE in result.stdout
    return committed
