"""kill -9 at sampled steps of an extraction commit and of a merge apply (and of the CLI
recovery itself), in real processes; the CLI's recovery must then leave the vault byte-equal
to the applied state (or the original after an undo) with no stray file. The full sweep of
every step is bench/crash_sweep.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.durability.harness import Workspace, prepare_extraction, prepare_merges
from tests.durability.sweep import (
    ExtractionCase,
    MergeCase,
    extraction_trial,
    merge_trial,
    reference_apply,
    reference_commit,
    undo_trial,
)


@pytest.fixture(scope="module")
def extraction(tmp_path_factory) -> ExtractionCase:
    home = tmp_path_factory.mktemp("extraction")
    template, run_id = prepare_extraction(home / "template")
    committed = reference_commit(template, run_id, home / "reference")
    return ExtractionCase(template, run_id, committed.files(), committed.folders())


@pytest.fixture(scope="module")
def merges(tmp_path_factory) -> tuple[MergeCase, Workspace]:
    home = tmp_path_factory.mktemp("merges")
    template = prepare_merges(home / "template")
    applied = reference_apply(template, home / "reference")
    case = MergeCase(
        template, template.files(), template.folders(), applied.files(), applied.folders()
    )
    return case, applied


@pytest.mark.parametrize(
    ("n", "m"),
    [
        (1, 0),  # before the answer is recorded: the review waits again
        (2, 0),  # answer recorded, store not committed: repair commits what was approved
        (4, 0),  # the first note renamed into place, nothing marked
        (7, 3),  # halfway through the notes, and repair killed too
    ],
)
def test_extraction_commit_killed_then_repaired(extraction, tmp_path: Path, n: int, m: int) -> None:
    trial = extraction_trial(extraction, tmp_path / "work", n, m)
    assert trial.kills >= 1 and not trial.through
    assert trial.ok, trial.problems


@pytest.mark.parametrize(
    ("n", "m", "undo"),
    [
        (1, 0, False),  # the first temporary file written, nothing renamed
        (6, 0, True),  # three notes rewritten
        (13, 2, False),  # the first archive move done; the resume killed too
        (15, 3, True),  # the last moves; the undo killed too
    ],
)
def test_merge_apply_killed_then_resumed_or_undone(
    merges, tmp_path: Path, n: int, m: int, undo: bool
) -> None:
    trial = merge_trial(merges[0], tmp_path / "work", n, m, undo=undo)
    assert trial.kills >= 1 and not trial.through
    assert trial.ok, trial.problems


def test_undo_killed_then_undone_again(merges, tmp_path: Path) -> None:
    case, applied = merges
    trial = undo_trial(case, applied, tmp_path / "work", 5)
    assert trial.kills == 1 and trial.ok, trial.problems
