"""Benchmark: cold index and incremental re-index of a 10,000-note vault vs obsidiantools.

Generates sources with quotes and concept notes with links in a temp dir, then measures in
the same run: noema's cold index (time, peak memory (growth of max RSS), each in its own
process), obsidiantools' `Vault(path).connect().gather()` on the same vault, and the median
latency of re-indexing one changed note. The last line printed is one JSON object with the
figures and the targets. Wall and CPU times are both given: on a shared machine the CPU ratio
is the steadier one.

obsidiantools needs minutes of CPU on 10,000 notes, so its child gets a wall-time budget
(`--baseline-budget-s`, counted from the moment its timed work starts). If it finishes in time,
its figures are reported as measured ("baseline_complete": true). If not, its process group is
killed and only what that proves is reported ("baseline_complete": false): its time is at least
the time it had run ("obsidiantools_s_at_least", likewise for CPU), so noema's ratio is at most
"ratio_at_most"; its peak memory is at least the high-water mark of its RSS when it was cut
("obsidiantools_peak_mb_at_least", null where /proc cannot tell). The cold target counts as
met only when proven: by the ratio, or by the bound being within the target; a bound above
the target proves nothing either way ("cold_target_met": null). "meets_target" is true only
when both targets are proven met in this run.

    .venv/bin/python bench/index.py [--notes 10000] [--skip-baseline] [--baseline-budget-s 150]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.domain import Concept, Relation, RelationType  # noqa: E402
from core.store import Store  # noqa: E402
from vault.index import VaultIndex  # noqa: E402
from vault.layout import VaultLayout  # noqa: E402

TARGET_RATIO = 0.5
DEFAULT_BASELINE_BUDGET_S = 150.0  # the whole 10,000-note run then takes ~170 s on 2 cores
Vault = None  # obsidiantools.api.Vault, imported in the child that needs it
TARGET_INCREMENTAL_MS = 50.0
WORDS = [
    "memoria",
    "atención",
    "hábito",
    "aprendizaje",
    "práctica",
    "recuerdo",
    "sistema",
    "identidad",
    "concentración",
    "habit",
    "memory",
    "attention",
    "learning",
    "practice",
    "retrieval",
    "spacing",
    "focus",
    "system",
    "identity",
    "model",
    "review",
    "interval",
    "curve",
    "forgetting",
    "context",
    "cue",
    "reward",
    "craving",
    "response",
    "environment",
]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def source_text(rng: random.Random, i: int) -> str:
    lines = [
        "---",
        f"title: Book {i}",
        f"author: Author {i % 97}",
        "category: book",
        "---",
        f"# Book {i}",
        "",
        "## Highlights",
    ]
    for q in range(10):
        if q % 2:
            lines.append(
                f"- {sentence(rng, 18)} ([Location {q * 37}](https://readwise.io/x)) ^b{i}-{q}"
            )
        else:
            lines += [f"> {sentence(rng, 12)}", f"> {sentence(rng, 8)}", ""]
    return "\n".join(lines) + "\n"


def concept_text(
    rng: random.Random, i: int, ids: list[str], names: dict[str, str], n_sources: int
) -> str:
    from core.concept_notes import QuoteRef, render_concept_note

    concept = Concept(
        id=ids[i],
        title=f"Concept {i}",
        aliases=[f"Idea {i}"],
        short_summary=sentence(rng, 12),
        summary=sentence(rng, 40),
        concept=sentence(rng, 30),
        analysis=sentence(rng, 30) + f" See [[Concept {rng.randrange(len(ids))}]].",
    )
    relations = [
        Relation(source_id=ids[i], type=rng.choice(list(RelationType)), target_id=ids[j])
        for j in rng.sample(range(len(ids)), 4)
        if j != i
    ]
    src = rng.randrange(n_sources)
    quotes = [QuoteRef(f"Book {src}", f"b{src}-{q}") for q in (1, 3)]
    return render_concept_note(concept, relations, names, quotes)


def generate(root: Path, notes: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    n_sources = notes // 5
    n_concepts = notes - n_sources
    (root / "03 - Sources").mkdir(parents=True)
    (root / "08 - Ideas").mkdir(parents=True)
    for i in range(n_sources):
        (root / "03 - Sources" / f"Book {i}.md").write_text(source_text(rng, i), encoding="utf-8")
    ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(n_concepts)]
    names = {concept_id: f"Concept {j}" for j, concept_id in enumerate(ids)}
    for i in range(n_concepts):
        text = concept_text(rng, i, ids, names, n_sources)
        (root / "08 - Ideas" / f"Concept {i}.md").write_text(text, encoding="utf-8")


def noema_cold(vault: Path, db: Path) -> str:
    store = Store(db)
    result = VaultIndex(store, vault, VaultLayout()).sync_files()
    store.close()
    return result.summary()


def obsidiantools_cold(vault: Path) -> str:
    vault_obj = Vault(vault).connect().gather()
    return f"{len(vault_obj.md_file_index)} notes"


def child(which: str, vault: Path, db: Path) -> None:
    """Run one cold index in this (fresh) process: wall time and peak-RSS growth.

    A first line says the timed work has started (with the RSS and CPU already used), so the
    parent can time a budget from that moment and still bound the figures if it cuts us.
    """
    global Vault
    if which == "obsidiantools":
        from obsidiantools.api import Vault
    gc.collect()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu = time.perf_counter(), time.process_time()
    print(json.dumps({"started": True, "base_kb": base, "cpu_before_s": cpu}), flush=True)
    summary = noema_cold(vault, db) if which == "noema" else obsidiantools_cold(vault)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
    print(
        json.dumps({"seconds": elapsed, "cpu_s": cpu, "peak_mb": peak / 1024, "summary": summary})
    )


def children_cpu_s() -> float:
    """CPU used by this process's reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rss_high_water_kb(pid: int) -> int | None:
    """Peak RSS of a live process so far (VmHWM), or None where /proc does not say."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def stop(proc: subprocess.Popen) -> None:
    """Kill the child's whole process group if it still runs, and reap it: no orphans."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def child_failed(proc: subprocess.Popen, err) -> RuntimeError:
    err.seek(0)
    return RuntimeError(f"bench child exited with {proc.returncode}:\n{err.read()[-4000:]}")


def read_started(proc: subprocess.Popen, err) -> dict:
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        raise child_failed(proc, err)
    return json.loads(line)


def cut_child(proc: subprocess.Popen, started: dict, ran_s: float, cpu_before: float) -> dict:
    """What a child cut at its budget proves: lower bounds on its time, CPU and peak RSS."""
    high_water = rss_high_water_kb(proc.pid)
    stop(proc)
    cpu = children_cpu_s() - cpu_before - started["cpu_before_s"]
    peak = None if high_water is None else max(0, high_water - started["base_kb"]) / 1024
    return {"complete": False, "seconds": ran_s, "cpu_s": cpu, "peak_mb": peak}


def run_child(which: str, vault: Path, db: Path, budget_s: float | None = None) -> dict:
    """Each cold index runs in its own process so neither inherits the other's caches.

    With a budget, a child still running `budget_s` after its timed work started is killed
    and the result is marked incomplete, its figures being lower bounds.
    """
    command = [sys.executable, __file__, "--child", which, str(vault), str(db)]
    cpu_before = children_cpu_s()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True
        )
        try:
            started = read_started(proc, err)
            start = time.perf_counter()
            try:
                proc.wait(timeout=budget_s)
            except subprocess.TimeoutExpired:
                return cut_child(proc, started, time.perf_counter() - start, cpu_before)
            if proc.returncode:
                raise child_failed(proc, err)
            return {"complete": True} | json.loads(proc.stdout.read().strip().splitlines()[-1])
        finally:
            stop(proc)
            proc.stdout.close()


def incremental(vault: Path, db: Path, runs: int = 9) -> float:
    store = Store(db)
    index = VaultIndex(store, vault, VaultLayout())
    rel = "08 - Ideas/Concept 17.md"
    path = vault / rel
    original = path.read_text(encoding="utf-8")
    samples = []
    for n in range(runs):
        path.write_text(original + f"\nEdit {n}: [[Concept {n}]]\n", encoding="utf-8")
        start = time.perf_counter()
        result = index.index_paths([rel])
        samples.append((time.perf_counter() - start) * 1000)
        assert result.changed == 1, result
    path.write_text(original, encoding="utf-8")
    store.close()
    return statistics.median(samples)


def round_down(x: float, digits: int) -> float:
    return math.floor(x * 10**digits) / 10**digits


def round_up(x: float, digits: int) -> float:
    return math.ceil(x * 10**digits) / 10**digits


def complete_baseline(base: dict, ours: dict) -> dict:
    print(
        f"obsidiantools connect().gather(): {base['seconds']:.2f}s,"
        f" peak +{base['peak_mb']:.1f} MiB ({base['summary']})",
        flush=True,
    )
    return {
        "baseline_complete": True,
        "obsidiantools_s": round(base["seconds"], 3),
        "obsidiantools_cpu_s": round(base["cpu_s"], 3),
        "cpu_ratio": round(ours["cpu_s"] / base["cpu_s"], 4),
        "ratio": round(ours["seconds"] / base["seconds"], 4),
        "obsidiantools_peak_mb": round(base["peak_mb"], 1),
    }


def cut_baseline(base: dict, ours: dict, budget_s: float) -> dict:
    """Bounds only: the cut run took at least what it had used when it was killed."""
    ratio = round_up(ours["seconds"] / base["seconds"], 4)
    peak = None if base["peak_mb"] is None else round_down(base["peak_mb"], 1)
    print(
        f"obsidiantools connect().gather(): cut after {base['seconds']:.2f}s"
        f" (budget {budget_s:g}s, {base['cpu_s']:.2f}s CPU), peak at least"
        f" {'unknown' if peak is None else f'+{peak:.1f} MiB'}; noema/obsidiantools <= {ratio:.4f}"
        f" -> target <= {TARGET_RATIO} {'proven' if ratio <= TARGET_RATIO else 'not proven'}",
        flush=True,
    )
    return {
        "baseline_complete": False,
        "obsidiantools_s_at_least": round_down(base["seconds"], 3),
        "obsidiantools_cpu_s_at_least": round_down(base["cpu_s"], 3),
        "ratio_at_most": ratio,
        "cpu_ratio_at_most": round_up(ours["cpu_s"] / base["cpu_s"], 4),
        "obsidiantools_peak_mb_at_least": peak,
    }


def baseline(vault: Path, work: Path, ours: dict, budget_s: float) -> dict:
    """obsidiantools on the same vault within its budget, and the ratios (or their bounds)."""
    base = run_child("obsidiantools", vault, work / "unused.sqlite3", budget_s)
    figures = (
        complete_baseline(base, ours) if base["complete"] else cut_baseline(base, ours, budget_s)
    )
    return figures | {"baseline_budget_s": budget_s, "target_ratio": TARGET_RATIO}


def cold_target_met(figures: dict) -> bool | None:
    """True or False when measured; True when the bound proves it; None when nothing is proven."""
    if "ratio" in figures:
        return figures["ratio"] <= TARGET_RATIO
    if "ratio_at_most" in figures and figures["ratio_at_most"] <= TARGET_RATIO:
        return True
    return None


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument(
        "--baseline-budget-s",
        type=float,
        default=DEFAULT_BASELINE_BUDGET_S,
        help="wall seconds obsidiantools may run before it is cut and only bounds are reported",
    )
    parser.add_argument(
        "--child", nargs=3, metavar=("WHICH", "VAULT", "DB"), help=argparse.SUPPRESS
    )
    return parser.parse_args()


def cold_noema(vault: Path, work: Path) -> dict:
    ours = run_child("noema", vault, work / "index.sqlite3")
    print(
        f"noema cold index: {ours['seconds']:.2f}s, peak +{ours['peak_mb']:.1f} MiB"
        f" ({ours['summary']})",
        flush=True,
    )
    return ours


def main() -> None:
    args = parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    work = Path(tempfile.mkdtemp(prefix="noema-bench-"))
    try:
        vault = work / "vault"
        start = time.perf_counter()
        generate(vault, args.notes)
        print(f"generated {args.notes} notes in {time.perf_counter() - start:.1f}s", flush=True)
        ours = cold_noema(vault, work)
        figures = {
            "notes": args.notes,
            "cold_index_s": round(ours["seconds"], 3),
            "cold_index_cpu_s": round(ours["cpu_s"], 3),
            "peak_mb": round(ours["peak_mb"], 1),
        }
        if not args.skip_baseline:
            figures |= baseline(vault, work, ours, args.baseline_budget_s)
        inc = incremental(vault, work / "index.sqlite3")
        print(f"incremental re-index of one note: median {inc:.1f} ms", flush=True)
        figures |= {"incremental_ms": round(inc, 2), "target_incremental_ms": TARGET_INCREMENTAL_MS}
        if not args.skip_baseline:
            figures["cold_target_met"] = cold_target_met(figures)
        figures["incremental_target_met"] = inc < TARGET_INCREMENTAL_MS
        figures["meets_target"] = bool(
            figures.get("cold_target_met") and figures["incremental_target_met"]
        )
        print(json.dumps(figures))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
