"""Leases: held by a live process, free the moment it dies (kill -9 included); start-up
recovery queues only the runs whose process died."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from core.leases import Leases, run_lease
from core.services import open_services
from core.settings import Settings
from core.store import Store
from core.store.runs import RunsRepo
from tests.durability.harness import REPO

HOLD = """
import sys, time
from core.leases import Leases
lease = Leases(__import__("pathlib").Path(sys.argv[1])).try_take(sys.argv[2])
print("held" if lease else "refused", flush=True)
time.sleep(600)
"""


def hold_in_a_process(directory: Path, name: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory), name],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_lease_is_held_while_its_process_lives_and_free_after_kill_9(tmp_path: Path) -> None:
    leases = Leases(tmp_path / "locks")
    holder = hold_in_a_process(tmp_path / "locks", "run-abc")
    try:
        assert leases.try_take("run-abc") is None
        assert leases.holder("run-abc").startswith(f"pid {holder.pid} on ")
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    with leases.take("run-abc"):
        assert leases.try_take("run-abc") is None  # per open file: this process too
    assert not (tmp_path / "locks" / "run-abc.lock").exists()  # released: nothing piles up
    assert Leases(None).try_take("anything") is not None  # an in-memory store


def test_start_up_recovery_queues_only_runs_whose_process_died(tmp_path: Path) -> None:
    settings = Settings(data={"directory": tmp_path / "data"})
    store = Store(settings.store_path)
    runs = RunsRepo(store)
    live, dead = (runs.create("extraction", {}, status="running") for _ in range(2))
    store.close()
    holder = hold_in_a_process(tmp_path / "data" / "locks", run_lease(live.id))
    assert_recovery_spares_the_held_run(settings, live.id, dead.id, holder)


def assert_recovery_spares_the_held_run(
    settings: Settings, live: str, dead: str, holder: subprocess.Popen
) -> None:
    """Start-up recovery queues `dead` only while `holder` holds `live`'s lease; once the
    holder is killed, `live` is queued too (shared with the advisory-lease test)."""
    try:
        services = open_services(settings, {})
        assert services.recovered == [dead]
        repo = services.runtime.runs
        assert (repo.get(live).status, repo.get(dead).status) == ("running", "queued")
        services.store.close()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    services = open_services(settings, {})
    assert services.recovered == [live]
    assert services.runtime.runs.get(live).status == "queued"
    services.store.close()


def test_taking_a_lease_names_the_holder_without_cutting_its_file_to_zero(
    tmp_path: Path, monkeypatch
) -> None:
    """A file cut to zero is flushed to disk when closed (ext4's auto_da_alloc): the release
    waited milliseconds for the disk on the event loop, every turn of a chat."""
    stale = tmp_path / "locks" / "run-abc.lock"
    stale.parent.mkdir()
    stale.write_text("pid 999999 on a-machine-whose-name-is-much-longer-than-this-one\n" * 3)
    cuts: list[int] = []
    real_ftruncate = os.ftruncate
    monkeypatch.setattr(os, "ftruncate", lambda fd, n: (cuts.append(n), real_ftruncate(fd, n)))
    leases = Leases(tmp_path / "locks")
    with leases.take("run-abc"):
        assert stale.read_text() == f"pid {os.getpid()} on {socket.gethostname()}\n"
        assert leases.holder("run-abc") == f"pid {os.getpid()} on {socket.gethostname()}"
    with leases.take("run-abc"):  # a fresh file (the last holder removed its own)
        assert stale.read_text() == f"pid {os.getpid()} on {socket.gethostname()}\n"
    assert cuts and 0 not in cuts
