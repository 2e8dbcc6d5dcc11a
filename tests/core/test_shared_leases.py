"""Leases on a shared store: advisory locks in PostgreSQL, held across machines while their
process lives, free the moment it dies (kill -9 included); a second take in one process is
refused as a second flock is; start-up recovery leaves alone the runs another machine drives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from core.leases import Leases, run_lease
from core.settings import Settings
from core.shared_leases import AdvisoryLeases
from core.store import open_store
from core.store.runs import RunsRepo
from tests.core.test_leases import assert_recovery_spares_the_held_run
from tests.fixtures.postgres import store_env

REPO = Path(__file__).resolve().parents[2]

HOLD = """
import sys, time
from core.leases import Leases
from core.settings import Settings
from core.store import open_store
store = open_store(Settings(data={"directory": sys.argv[1]}))
lease = Leases.of_store(store).try_take(sys.argv[2])
print("held" if lease else "refused", flush=True)
time.sleep(600)
"""


def hold_on_another_machine(data: Path, store: dict, name: str) -> subprocess.Popen:
    """A process with its own data directory (another machine) holding a lease."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(data), name],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **store_env(store)},
    )
    assert process.stdout.readline().strip() == "held"
    return process


def test_an_advisory_lease_is_held_while_its_process_lives_and_free_after_kill_9(
    tmp_path: Path, postgres_store: dict
) -> None:
    store = open_store(Settings(data={"directory": tmp_path / "here"}, store=postgres_store))
    leases = Leases.of_store(store)
    assert isinstance(leases, AdvisoryLeases)
    holder = hold_on_another_machine(tmp_path / "there", postgres_store, "run-abc")
    try:
        assert leases.try_take("run-abc") is None
        assert not leases.is_free("run-abc")
        assert leases.holder("run-abc").startswith(f"pid {holder.pid} on ")
        assert leases.try_take("run-other") is not None  # other names are free
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    lease = leases.wait("run-abc", timeout=30)  # the server notices the closed session
    assert lease is not None
    assert leases.try_take("run-abc") is None  # held by this process: refused here too
    assert Leases.of_store(store).try_take("run-abc") is None  # by any Leases of it
    lease.release()
    assert leases.is_free("run-abc") and leases.holder("run-abc") == ""
    assert not (tmp_path / "here" / "locks").exists()  # nothing in the data directory
    store.close()


def test_start_up_recovery_leaves_alone_runs_another_machine_drives(
    tmp_path: Path, postgres_store: dict
) -> None:
    settings = Settings(data={"directory": tmp_path / "here"}, store=postgres_store)
    store = open_store(settings)
    runs = RunsRepo(store)
    live, dead = (runs.create("extraction", {}, status="running") for _ in range(2))
    store.close()
    holder = hold_on_another_machine(tmp_path / "there", postgres_store, run_lease(live.id))
    assert_recovery_spares_the_held_run(settings, live.id, dead.id, holder)
