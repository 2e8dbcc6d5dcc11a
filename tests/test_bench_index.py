"""bench/index.py: a baseline cut at its budget reports bounds only, and leaves no process
behind."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "index.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_index", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_stop_kills_the_whole_process_group(bench, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    proc = subprocess.Popen(
        ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], start_new_session=True
    )
    while not pidfile.exists() or not pidfile.read_text().strip():
        time.sleep(0.01)
    grandchild = int(pidfile.read_text())
    bench.stop(proc)
    assert proc.returncode is not None
    deadline = time.monotonic() + 5
    while alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(grandchild)


def test_a_child_over_budget_is_cut_with_lower_bounds(bench, tmp_path):
    bench.generate(tmp_path / "vault", 20)
    result = bench.run_child("noema", tmp_path / "vault", tmp_path / "index.sqlite3", 0.0)
    assert result["complete"] is False
    assert result["seconds"] >= 0.0
    assert result["cpu_s"] >= 0.0
    assert result["peak_mb"] is None or result["peak_mb"] >= 0.0


def test_a_child_within_budget_reports_as_measured(bench, tmp_path):
    bench.generate(tmp_path / "vault", 20)
    result = bench.run_child("noema", tmp_path / "vault", tmp_path / "index.sqlite3", 120.0)
    assert result["complete"] is True
    assert "20 added" in result["summary"]


def test_a_cut_baseline_reports_bounds_rounded_the_safe_way(bench):
    ours = {"seconds": 6.5, "cpu_s": 6.0}
    cut = {"complete": False, "seconds": 150.0004, "cpu_s": 149.9999, "peak_mb": 812.36}
    figures = bench.cut_baseline(cut, ours, 150.0)
    assert figures["baseline_complete"] is False
    assert figures["obsidiantools_s_at_least"] == 150.0
    assert figures["obsidiantools_cpu_s_at_least"] == 149.999
    assert figures["ratio_at_most"] >= 6.5 / 150.0004
    assert figures["obsidiantools_peak_mb_at_least"] == 812.3
    assert "ratio" not in figures and "obsidiantools_s" not in figures


def test_the_cold_target_counts_only_when_proven(bench):
    assert bench.cold_target_met({"ratio": 0.4}) is True
    assert bench.cold_target_met({"ratio": 0.6}) is False
    assert bench.cold_target_met({"ratio_at_most": 0.05}) is True
    assert bench.cold_target_met({"ratio_at_most": 0.7}) is None
    assert bench.cold_target_met({}) is None
