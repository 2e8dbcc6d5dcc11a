"""Benchmark: kill -9 at every step of an extraction commit, a merge apply and a merge undo,
in real `noema` processes, then recover with the CLI (tests/durability/sweep.py).

Every crash point of each operation is tried (vault/crashpoints.py: NOEMA_CRASH_AT=N makes the
process SIGKILL itself at its Nth point; N = 1, 2, ... until the process gets through):

1. `noema review RUN --approve` of an extraction waiting at its review, killed at N; then
   `noema repair`, itself killed at one of its own points first (a crash during the
   recovery), then `noema repair` (and the review answered again if the answer was lost).
   The vault must equal an uninterrupted commit's, byte for byte.
2. `noema merges apply REVIEW --yes` (4 clusters of the sample vault), killed at N; on one copy
   `merges apply --resume` (killed once at one of its points first) must reach the applied
   vault, on another `merges undo` (killed once first) the original one.
3. `noema merges undo` of a finished apply, killed at N, the next undo killed once too, then
   undone again: the original vault.

A trial fails if any file differs (processed_date values aside, they are timestamps), a file
or folder is missing or stray (temporary files included), or the store disagrees (a run left
`running`, a commit pending, a review in the wrong status). Kill points = processes killed.

    .venv/bin/python bench/crash_sweep.py [--jobs 2] [--quick]

The last line printed is one JSON object: trials, kill points, failures, targets.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.durability.harness import prepare_extraction, prepare_merges  # noqa: E402
from tests.durability.sweep import (  # noqa: E402
    ExtractionCase,
    MergeCase,
    Trial,
    extraction_trial,
    kill_apply,
    merge_trial,
    reference_apply,
    reference_commit,
    undo_trial,
)

TARGET_KILL_POINTS = 100
MAX_POINTS = 200
"""No operation here has that many crash points; a sweep that reaches it is broken."""


def sweep(run_point: Callable[[int], list[Trial]], jobs: int, points: list[int] | None) -> list:
    """Trials for N = 1, 2, ... in batches of `jobs`, until one gets through (or `points`)."""
    trials: list[Trial] = []
    numbers = iter(points or range(1, MAX_POINTS))
    with ThreadPoolExecutor(jobs) as pool:
        while batch := [n for _, n in zip(range(jobs), numbers, strict=False)]:
            for result in pool.map(run_point, batch):
                for trial in result:
                    if trial.through:
                        print(f"---- {trial.name}: got through, no such point", flush=True)
                        continue
                    print(
                        ("ok   " if trial.ok else "FAIL ")
                        + trial.name
                        + ("" if trial.ok else f": {trial.problems}"),
                        flush=True,
                    )
                trials += result
            if any(t.through for t in trials):
                break
    return [t for t in trials if not t.through]


def extraction_sweep(home: Path, jobs: int, points: list[int] | None) -> list[Trial]:
    template, run_id = prepare_extraction(home / "template")
    committed = reference_commit(template, run_id, home / "reference")
    case = ExtractionCase(template, run_id, committed.files(), committed.folders())
    return sweep(lambda n: [extraction_trial(case, home / f"k{n}", n, m=(n % 4) + 1)], jobs, points)


def merge_sweep(home: Path, jobs: int, points: list[int] | None) -> tuple[list, list, int]:
    template = prepare_merges(home / "template")
    applied = reference_apply(template, home / "reference")
    case = MergeCase(
        template, template.files(), template.folders(), applied.files(), applied.folders()
    )
    victims = {"killed": 0}

    def apply_point(n: int) -> list[Trial]:
        killed = kill_apply(case, home / f"a{n}", n)
        if killed is None:
            return [Trial(f"merge apply got through at {n}", through=True)]
        victims["killed"] += 1
        return [
            merge_trial(case, home / f"r{n}", n, ((n - 1) % 8) + 1, killed=killed),
            merge_trial(case, home / f"u{n}", n, ((n - 1) % 6) + 1, undo=True, killed=killed),
        ]

    applies = sweep(apply_point, jobs, points)
    undos = sweep(
        lambda n: [undo_trial(case, applied, home / f"d{n}", n, ((n - 1) % 5) + 1)], jobs, points
    )
    return applies, undos, victims["killed"]


def counts(trials: list[Trial], victims: int = 0) -> dict[str, int]:
    return {"trials": len(trials), "kill_points": victims + sum(t.kills for t in trials)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="trials run at once (default 2)")
    parser.add_argument("--quick", action="store_true", help="a few points of each operation")
    args = parser.parse_args()
    points = [1, 2, 5] if args.quick else None
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="noema-crash-sweep-") as tmp:
        extraction = extraction_sweep(Path(tmp) / "extraction", args.jobs, points)
        applies, undos, apply_kills = merge_sweep(Path(tmp) / "merges", args.jobs, points)
    trials = extraction + applies + undos
    kills = sum(t.kills for t in trials) + apply_kills
    failures = [t.name for t in trials if not t.ok]
    figures = {
        "trials": len(trials),
        "kill_points": kills,
        "failures": len(failures),
        "by_operation": {
            "extraction commit (+ repair)": counts(extraction),
            "merge apply (+ resume or undo)": counts(applies, apply_kills),
            "merge undo (+ undo)": counts(undos),
        },
        "failed": failures,
        "seconds": round(time.perf_counter() - start, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "targets": {"failures": 0, "kill_points_at_least": TARGET_KILL_POINTS},
        "met": not failures and (args.quick or kills >= TARGET_KILL_POINTS),
    }
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
