"""Two real noema processes doing the same thing at once: the loser reports that another
process already did it, exits cleanly and leaves every status right.

Each race is made deterministic with NOEMA_STALL_AT: the first process is held at a precise
step (vault/crashpoints.py) while the second one starts and runs into it."""

from __future__ import annotations

from pathlib import Path

from tests.durability.harness import (
    REVIEW,
    Stall,
    assert_one_approval_won,
    prepare_extraction,
    prepare_merges,
)
from tests.durability.sweep import reference_apply


def test_two_approvals_of_one_review_commit_once_and_the_run_ends_done(tmp_path: Path) -> None:
    workspace, run_id = prepare_extraction(tmp_path / "w")
    stall = Stall(tmp_path / "stall")
    first = workspace.start("review", run_id, "--approve", **stall.env("runtime.resume"))
    stall.wait_reached("runtime.resume", first)  # read the run as awaiting review; held there
    second = workspace.start("review", run_id, "--approve", **stall.env("extraction.commit_store"))
    try:
        wait_for_either(stall, "extraction.commit_store", second, "waiting for it")
    finally:
        stall.go("runtime.resume")
    won = first.finish()
    stall.go("extraction.commit_store")
    lost = second.finish()
    assert_one_approval_won(won, lost, workspace)
    assert len(workspace.query("SELECT * FROM concepts WHERE title LIKE 'Efecto del%'")) == 1


def test_a_second_merges_apply_reports_the_first_did_it(tmp_path: Path) -> None:
    workspace = prepare_merges(tmp_path / "w")
    applied = reference_apply(workspace, tmp_path / "reference").files()
    stall = Stall(tmp_path / "stall")
    first = workspace.start("merges", "apply", REVIEW, "--yes", **stall.env("move.renamed"))
    stall.wait_reached("move.renamed", first)  # every note rewritten, the first variant archived
    second = workspace.start("merges", "apply", REVIEW, "--yes")
    try:
        second.wait_for_stderr("waiting for it")
    finally:
        stall.go("move.renamed")
    won, lost = first.finish(), second.finish()
    assert won.returncode == 0 and "applied (journal 1)" in won.stdout, won.stderr
    assert lost.returncode == 0, lost.stderr
    assert "already applied by another process" in lost.stdout
    assert "Traceback" not in lost.stderr and "FileNotFoundError" not in lost.stderr
    assert workspace.files() == applied
    assert workspace.query("SELECT status FROM normalization_reviews") == [("applied",)]
    assert workspace.query("SELECT status FROM merge_journals") == [("applied",)]


def test_two_repairs_write_each_file_once_and_the_loser_says_so(tmp_path: Path) -> None:
    workspace, run_id = prepare_extraction(tmp_path / "w")
    assert workspace.drive("crash", run_id).returncode == 3  # the vault half is left pending
    stall = Stall(tmp_path / "stall")
    first = workspace.start("repair", **stall.env("write.temp_written"))
    stall.wait_reached("write.temp_written", first)  # holding the commit, mid-write
    second = workspace.start("repair")
    try:
        second.wait_for_stderr("waiting")
    finally:
        stall.go("write.temp_written")
    won, lost = first.finish(), second.finish()
    assert won.returncode == 0 and "1 commit(s) finished, 4 file(s) written" in won.stdout
    assert lost.returncode == 0, lost.stderr
    assert f"{run_id[:8]}: already done by another process" in lost.stdout
    assert "file(s) written" not in lost.stdout
    assert workspace.query("SELECT status FROM runs") == [("done",)]
    assert workspace.query("SELECT status FROM extraction_commits") == [("done",)]


def wait_for_either(stall: Stall, name: str, running, needle: str, timeout: float = 120) -> None:
    """The second process either reached its own stall point (no lease kept it out) or says it
    waits for the first (a lease did): either way the race is set up."""
    import time

    deadline = time.monotonic() + timeout
    while not stall.reached(name) and needle not in running.stderr():
        assert running.process.poll() is None, running.stderr()
        assert time.monotonic() < deadline, f"neither {name} nor {needle!r}"
        time.sleep(0.05)
