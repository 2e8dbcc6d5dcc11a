"""After kill -9, command-line users are not stuck with a run shown `running`; a run another
live process drives is never "recovered"; `noema extract` joins a run instead of starting a
second one. Real processes, the real CLI."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.durability.harness import (
    DRIVER,
    KILLED,
    REPO,
    SOURCE,
    Workspace,
    prepare_extraction,
)


def wait_until(condition, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def status(workspace: Workspace, run_id: str) -> str:
    return workspace.query("SELECT status FROM runs WHERE id=?", (run_id,))[0][0]


def test_a_run_killed_mid_commit_is_not_left_running_and_repair_finishes_it(
    tmp_path: Path,
) -> None:
    workspace, run_id = prepare_extraction(tmp_path / "w")
    # killed at its 2nd crash point: the approval is recorded, the store commit not yet made
    killed = workspace.cli("review", run_id, "--approve", NOEMA_CRASH_AT="2")
    assert killed.returncode == KILLED
    assert status(workspace, run_id) == "running"  # what the killed process left

    runs = workspace.cli("runs")
    assert runs.returncode == 0
    line = next(row for row in runs.stdout.splitlines() if row.startswith(run_id[:8]))
    assert line.split()[1] == "queued"  # every CLI start recovers it

    repaired = workspace.cli("repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "1 commit(s) finished" in repaired.stdout
    assert status(workspace, run_id) == "done"
    assert workspace.query("SELECT status FROM extraction_commits") == [("done",)]
    assert (workspace.vault / "08 - Ideas" / "Efecto del espaciado.md").exists()


def test_extract_continues_a_killed_run_instead_of_starting_a_second(tmp_path: Path) -> None:
    workspace, run_id = prepare_extraction(tmp_path / "w")
    assert workspace.cli("review", run_id, "--approve", NOEMA_CRASH_AT="2").returncode == KILLED
    result = workspace.cli("extract", SOURCE)
    assert result.returncode == 0, result.stderr
    assert "Committed" in result.stdout
    assert workspace.query("SELECT id, status FROM runs") == [(run_id, "done")]


def test_a_review_answered_by_a_killed_process_can_be_answered_again(tmp_path: Path) -> None:
    workspace, run_id = prepare_extraction(tmp_path / "w")
    # killed right after reading the run, before the answer reached the checkpoint
    assert workspace.cli("review", run_id, "--approve", NOEMA_CRASH_AT="1").returncode == KILLED
    again = workspace.cli("review", run_id, "--approve")
    assert again.returncode == 0, again.stderr
    assert "Committed" in again.stdout and status(workspace, run_id) == "done"


def test_extract_joins_the_run_another_live_process_drives(tmp_path: Path) -> None:
    workspace = Workspace.create(tmp_path / "w")
    hold = tmp_path / "release"
    driver = workspace.home / "driver.out"
    with open(driver, "w") as out:
        first = subprocess.Popen(
            [
                sys.executable,
                str(DRIVER),
                str(workspace.vault),
                str(workspace.data),
                "start",
                SOURCE,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=workspace.env(DRIVER_HOLD_FILE=str(hold)),
        )
    try:
        wait_until(lambda: workspace.query("SELECT status FROM runs") == [("running",)])
        # a live process drives it: every CLI start leaves it alone
        runs = workspace.cli("runs")
        assert " running " in runs.stdout, runs.stdout
        joining = workspace.start("extract", SOURCE)
        joining.wait_for_stderr("being driven by another noema process")
    finally:
        hold.touch()
    assert first.wait(120) == 0, driver.read_text()
    joined = joining.finish()
    assert joined.returncode == 0, joined.stderr
    run_id = workspace.query("SELECT id FROM runs")[0][0]
    assert f"noema review {run_id[:8]}" in joined.stdout  # the report of the run it joined
    assert workspace.query("SELECT status FROM runs") == [("awaiting_review",)]
