"""Every scripted benchmark runs to its JSON line in a quick setting.

Benchmarks call the flows' own functions and test helpers, and they rotted silently when those
changed (bench/extraction.py passed its script positionally after the scripted backend took it
by keyword; bench/normalization.py's stand-in vault had no root for the note language;
bench/lesson_selfreview.py unpacked one value where the node returns two): each ended in a
traceback, which no test saw. The benchmarks that need the real local model
(local_model.py), PostgreSQL (shared_store.py) or minutes (crash_sweep.py, startup.py) are run
by hand; their figures are in the closing notes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

QUICK = [
    ("extraction.py", "--concurrency", "2"),
    ("index.py", "--notes", "100", "--skip-baseline"),
    ("lesson_cascade.py", "--per-language", "1"),
    ("lesson_review.py", "--languages", "fr,zh", "--no-cascade"),
    ("lesson_selfreview.py", "--local", "0"),
    ("normalization.py",),
    ("tutor.py", "--turns", "4"),
    ("write_window.py", "--writes", "5"),
]


@pytest.mark.parametrize("command", QUICK, ids=lambda c: c[0])
def test_the_benchmark_runs_to_its_json_line(command: tuple[str, ...], tmp_path: Path) -> None:
    script, *args = command
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert isinstance(json.loads(last), dict), last
