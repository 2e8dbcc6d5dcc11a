"""Two machines on one shared PostgreSQL store (each its own data directory and its own copy
of the vault, as a sync leaves them): a run started on one is reviewed and finished on the
other; two machines answering one review at once commit it once, and the loser says so.
Real processes, the real CLI, a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

from tests.durability.harness import Stall, assert_one_approval_won, prepare_extraction

NEW_NOTE = "08 - Ideas/Efecto del espaciado.md"


def test_a_run_started_on_one_machine_is_reviewed_and_finished_on_another(
    tmp_path: Path, postgres_store: dict
) -> None:
    first, run_id = prepare_extraction(tmp_path / "laptop", postgres_store)
    second = first.another_machine(tmp_path / "desktop")
    assert second.cli("index").returncode == 0  # the desktop's own index of its vault copy

    listed = second.cli("runs")
    assert listed.returncode == 0, listed.stderr
    line = next(row for row in listed.stdout.splitlines() if row.startswith(run_id[:8]))
    assert line.split()[1] == "awaiting_review"
    report = second.cli("review", run_id)  # the report, read from the shared checkpoint
    assert report.returncode == 0 and "Efecto del espaciado" in report.stdout, report.stderr

    approved = second.cli("review", run_id, "--approve")
    assert approved.returncode == 0 and "Committed" in approved.stdout, approved.stderr
    assert (second.vault / NEW_NOTE).exists()  # written on the machine that approved
    assert not (first.vault / NEW_NOTE).exists()  # the laptop gets it from the vault's sync
    assert first.query("SELECT status FROM runs") == [("done",)]
    assert first.query("SELECT status FROM extraction_commits") == [("done",)]

    again = first.cli("review", run_id, "--approve")  # the laptop's late answer
    assert again.returncode == 1
    assert f"run {run_id[:8]} is done, not awaiting review" in again.stderr
    assert "Traceback" not in again.stderr
    assert first.query("SELECT COUNT(*) FROM extraction_commits") == [(1,)]


def test_two_machines_approving_one_review_at_once_commit_it_once(
    tmp_path: Path, postgres_store: dict
) -> None:
    laptop, run_id = prepare_extraction(tmp_path / "laptop", postgres_store)
    desktop = laptop.another_machine(tmp_path / "desktop")
    assert desktop.cli("index").returncode == 0
    stall = Stall(tmp_path / "stall")
    first = laptop.start("review", run_id, "--approve", **stall.env("runtime.resume"))
    stall.wait_reached("runtime.resume", first)  # holds the run's lease, about to resume
    second = desktop.start("review", run_id, "--approve", **stall.env("extraction.commit_store"))
    try:
        second.wait_for_stderr("waiting for it")  # the lease holds across machines
    finally:
        stall.go("runtime.resume")
    won = first.finish()
    stall.go("extraction.commit_store")
    lost = second.finish()
    assert_one_approval_won(won, lost, laptop)
    assert not stall.reached("extraction.commit_store")  # the loser never began a commit
    assert (laptop.vault / NEW_NOTE).exists() and not (desktop.vault / NEW_NOTE).exists()
