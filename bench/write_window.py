"""Benchmark: how long a save by another program can land unseen during a noema write.

The writer checks a note's hash, writes the new bytes to a temporary file (fsync), checks
the note again (bytes, size, mtime, inode) and renames the temporary file over it. A save
that lands after the last check and before the rename takes effect is overwritten: that
interval is the window left. Measured per write, in the same run:

- window: end of the last check -> the rename returned (what remains);
- rename: the `os.replace` call alone (the part no check can shorten);
- baseline: end of the first check -> the rename returned (the window when only the first
  check is made, as before the re-check existed).

2,000 writes of a 4 KB note in a temporary vault (the same file system as the tmp folder).
The last line printed is one JSON object with the figures (microseconds) and the target.

    .venv/bin/python bench/write_window.py [--writes 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vault.writer as writer_module  # noqa: E402
from vault.writer import VaultWriter  # noqa: E402

TARGET_GAP_US = 50.0
"""What noema adds between its last check and the rename (median) stays under 50 us: the
window left is then the rename system call itself."""
NOTE = (
    "---\ntags: [bench]\n---\n# Nota\n\n" + "Una línea de texto de la nota, con acentos. ✓\n" * 85
)


def instrument() -> list[list[float]]:
    """Per write: the first check ends, the last check ends, the rename starts and returns."""
    marks: list[list[float]] = []
    observe, replace = writer_module._observe, os.replace

    def timed_observe(full):
        seen = observe(full)
        if not marks or len(marks[-1]) >= 4:
            marks.append([])
        marks[-1].append(time.perf_counter())
        return seen

    def timed_replace(src, dst):
        marks[-1].append(time.perf_counter())
        replace(src, dst)
        marks[-1].append(time.perf_counter())

    writer_module._observe = timed_observe
    writer_module.os.replace = timed_replace
    return marks


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 1),
        "p99": round(percentile(values, 0.99), 1),
        "max": round(max(values), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="noema-write-window-") as tmp:
        writer = VaultWriter(Path(tmp))
        writer.create("Nota.md", NOTE)
        marks = instrument()
        for i in range(args.writes):
            note = writer.read("Nota.md")
            writer.write("Nota.md", NOTE + f"{i}\n", expected_hash=note.hash)
    full = [m for m in marks if len(m) == 4]
    window = [(m[3] - m[1]) * 1e6 for m in full]
    rename = [(m[3] - m[2]) * 1e6 for m in full]
    gap = [(m[2] - m[1]) * 1e6 for m in full]
    baseline = [(m[3] - m[0]) * 1e6 for m in full]
    figures = {
        "writes": len(full),
        "window_us": summary(window),
        "rename_alone_us": summary(rename),
        "noema_gap_us": summary(gap),
        "baseline_first_check_only_us": summary(baseline),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "target": {"noema_gap_median_us_below": TARGET_GAP_US},
        "met": statistics.median(gap) < TARGET_GAP_US,
    }
    print(
        f"window left: median {figures['window_us']['median']} us "
        f"(the rename alone: {figures['rename_alone_us']['median']} us); "
        f"first check only: median {figures['baseline_first_check_only_us']['median']} us"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
