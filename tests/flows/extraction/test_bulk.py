"""`noema extract --all` against a pool of real server processes: every source to its review,
bounded concurrency, Ctrl-C and resume, a model that goes away mid-pass."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from core.backlog import Backlog
from core.flows.registry import open_app
from core.settings import load_settings
from tests.flows.extraction.backlog import backlog_vault, pool_settings
from tests.servers.handle import FakeServer
from tui.commands import CommandError
from tui.commands.bulk import extract_all

ROOT = Path(__file__).resolve().parents[3]


def query(data: Path, sql: str) -> list[tuple]:
    with closing(sqlite3.connect(data / "noema.sqlite3", timeout=10)) as db:
        return db.execute(sql).fetchall()


def runs_per_source(data: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for target, status in query(data, "SELECT target, status FROM runs WHERE flow='extraction'"):
        found.setdefault(target, []).append(status)
    return found


def statuses_so_far(data: Path) -> list[str]:
    """Every run's status, while another process may still be creating the store."""
    if not (data / "noema.sqlite3").exists():
        return []
    try:
        return [s for ss in runs_per_source(data).values() for s in ss]
    except sqlite3.OperationalError:  # its migrations have not made the tables yet
        return []


def workspace(tmp_path: Path, servers, count: int, **options) -> tuple[Path, Path, list[str]]:
    vault, data = tmp_path / "vault", tmp_path / "data"
    made = backlog_vault(vault, count)
    path = pool_settings(tmp_path / "pool.toml", vault, data, [s.url for s in servers], **options)
    return path, data, made


async def test_every_source_reaches_its_review_once_spread_over_the_pool(
    tmp_path, fake_servers, capsys
):
    servers = fake_servers(3, latency_ms=40, slots=1, responder="extraction")
    path, data, made = workspace(tmp_path, servers, 9)
    assert await extract_all(load_settings(path)) == 0
    runs = runs_per_source(data)
    assert set(made) <= set(runs)
    assert all(statuses == ["awaiting_review"] for statuses in runs.values())
    deployments = query(data, "SELECT DISTINCT deployment FROM traces WHERE kind='structured'")
    assert {row[0] for row in deployments} == {f"127.0.0.1:{s.port}" for s in servers}
    captured = capsys.readouterr()
    assert f"{len(runs)}/{len(runs)}" in captured.err and "/min" in captured.err
    assert f"{len(runs)} to review" in captured.out and "noema review RUN" in captured.out
    # a second pass finds every source waiting for its review: nothing runs again
    calls = query(data, "SELECT COUNT(*) FROM traces")[0][0]
    assert await extract_all(load_settings(path)) == 0
    assert query(data, "SELECT COUNT(*) FROM traces")[0][0] == calls
    assert "already waiting" in capsys.readouterr().out


async def test_no_more_sources_run_at_once_than_bulk_runs(tmp_path, fake_servers):
    servers = fake_servers(2, latency_ms=30, slots=4, responder="extraction")
    path, _data, _made = workspace(tmp_path, servers, 8, slots=4)
    seen: list[int] = []
    async with open_app(load_settings(path)) as services:
        await services.vault.index.sync_async()
        backlog = Backlog(services, runs=3, on_progress=lambda c: seen.append(c.running))
        await backlog.run()
    assert max(seen) == 3
    assert backlog.counts.review == backlog.counts.total


async def test_a_dead_model_is_refused_before_anything_starts(tmp_path, fake_servers):
    servers = fake_servers(2, responder="extraction")
    path, data, _made = workspace(tmp_path, servers, 3)
    for server in servers:
        server.kill()
    with pytest.raises(CommandError) as caught:
        await extract_all(load_settings(path))
    assert "the model is not ready" in str(caught.value)
    assert "0 of 2 servers answer" in str(caught.value)
    assert query(data, "SELECT COUNT(*) FROM runs")[0][0] == 0


async def test_a_model_gone_mid_pass_is_waited_for_and_no_source_is_lost(tmp_path, fake_servers):
    servers = fake_servers(1, latency_ms=60, slots=1, responder="extraction")
    path, data, made = workspace(tmp_path, servers, 6, cooldown_s=0.5)
    port = servers[0].port
    waits: list[str] = []

    def progress(counts) -> None:
        if counts.model_wait and not waits:
            waits.append(counts.model_wait)
        if counts.review >= 2 and servers[0].alive and not waits:
            servers[0].kill()  # the only server dies with runs under way

    async def bring_back(passing: asyncio.Task) -> None:
        while not waits and not passing.done():
            await asyncio.sleep(0.1)
        if waits:  # the pass noticed and waits: the server comes back on the same port
            servers.append(
                FakeServer.start(
                    "openai", port=port, latency_ms=60, slots=1, responder="extraction"
                )
            )

    async with open_app(load_settings(path)) as services:
        await services.vault.index.sync_async()
        backlog = Backlog(services, runs=2, on_progress=progress)
        passing = asyncio.create_task(backlog.run())
        await asyncio.wait_for(asyncio.gather(passing, bring_back(passing)), timeout=120)
    assert waits, "the pass never waited for the model that went away"
    servers[-1].stop()
    assert "cannot reach" in waits[0]
    runs = runs_per_source(data)
    assert set(made) <= set(runs)
    assert all(statuses == ["awaiting_review"] for statuses in runs.values()), runs


def test_ctrl_c_stops_the_pass_and_the_same_command_continues_every_run(tmp_path, fake_servers):
    servers = fake_servers(2, latency_ms=250, slots=1, responder="extraction")
    path, data, made = workspace(tmp_path, servers, 8)
    command = [sys.executable, "-m", "tui.cli", "--settings", str(path), "extract", "--all"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # some runs at their review, others under way
            statuses = statuses_so_far(data)
            if statuses.count("awaiting_review") >= 2 and "running" in statuses:
                break
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "stopped:" in err and "`noema extract --all` continues them" in err
    stopped = runs_per_source(data)
    flat = [s for ss in stopped.values() for s in ss]
    assert "running" not in flat and "failed" not in flat
    assert "queued" in flat and flat.count("awaiting_review") >= 2
    reviewed_at_stop = {
        run for (run,) in query(data, "SELECT id FROM runs WHERE status='awaiting_review'")
    }

    again = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    runs = runs_per_source(data)
    assert set(made) <= set(runs)
    assert all(statuses == ["awaiting_review"] for statuses in runs.values()), runs
    # nothing done twice: a run at its review was not run again, and a stopped run redid at
    # most the one step it was in when Ctrl-C came (its answer not yet checkpointed)
    twice = query(
        data,
        "SELECT run_id, node, COUNT(*) FROM traces WHERE outcome='ok'"
        " GROUP BY run_id, node HAVING COUNT(*) > 1",
    )
    requeued = {run for (run,) in query(data, "SELECT id FROM runs")} - reviewed_at_stop
    assert {run for run, _node, _count in twice} <= requeued, twice
    assert all(count == 2 for _run, _node, count in twice), twice
    assert len(twice) == len({run for run, _node, _count in twice}), twice
