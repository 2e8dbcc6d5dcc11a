"""Benchmark: cold index and incremental re-index of a 10,000-note vault vs obsidiantools.

Generates sources with quotes and concept notes with links in a temp dir, then measures in
the same run: noema's cold index (time, peak memory (growth of max RSS), each in its own process), obsidiantools'
`Vault(path).connect().gather()` on the same vault, and the median latency of re-indexing one
changed note. The last line printed is one JSON object with the figures and the targets. Wall
and CPU times are both given: on a shared machine the CPU ratio is the steadier one.

    .venv/bin/python bench/index.py [--notes 10000] [--skip-baseline]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import shutil
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
    """Run one cold index in this (fresh) process: wall time and peak-RSS growth."""
    global Vault
    if which == "obsidiantools":
        from obsidiantools.api import Vault
    gc.collect()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu = time.perf_counter(), time.process_time()
    summary = noema_cold(vault, db) if which == "noema" else obsidiantools_cold(vault)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
    print(
        json.dumps({"seconds": elapsed, "cpu_s": cpu, "peak_mb": peak / 1024, "summary": summary})
    )


def run_child(which: str, vault: Path, db: Path) -> dict:
    """Each cold index runs in its own process so neither inherits the other's caches."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", which, str(vault), str(db)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


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


def baseline(vault: Path, work: Path, ours: dict) -> dict:
    """obsidiantools on the same vault, and the ratios."""
    base = run_child("obsidiantools", vault, work / "unused.sqlite3")
    print(
        f"obsidiantools connect().gather(): {base['seconds']:.2f}s,"
        f" peak +{base['peak_mb']:.1f} MiB ({base['summary']})",
        flush=True,
    )
    return {
        "obsidiantools_s": round(base["seconds"], 3),
        "obsidiantools_cpu_s": round(base["cpu_s"], 3),
        "cpu_ratio": round(ours["cpu_s"] / base["cpu_s"], 4),
        "ratio": round(ours["seconds"] / base["seconds"], 4),
        "target_ratio": TARGET_RATIO,
        "obsidiantools_peak_mb": round(base["peak_mb"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument(
        "--child", nargs=3, metavar=("WHICH", "VAULT", "DB"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    work = Path(tempfile.mkdtemp(prefix="noema-bench-"))
    try:
        vault = work / "vault"
        start = time.perf_counter()
        generate(vault, args.notes)
        print(f"generated {args.notes} notes in {time.perf_counter() - start:.1f}s", flush=True)
        ours = run_child("noema", vault, work / "index.sqlite3")
        print(
            f"noema cold index: {ours['seconds']:.2f}s, peak +{ours['peak_mb']:.1f} MiB"
            f" ({ours['summary']})",
            flush=True,
        )
        figures = {
            "notes": args.notes,
            "cold_index_s": round(ours["seconds"], 3),
            "cold_index_cpu_s": round(ours["cpu_s"], 3),
            "peak_mb": round(ours["peak_mb"], 1),
        }
        if not args.skip_baseline:
            figures |= baseline(vault, work, ours)
        inc = incremental(vault, work / "index.sqlite3")
        print(f"incremental re-index of one note: median {inc:.1f} ms", flush=True)
        figures |= {"incremental_ms": round(inc, 2), "target_incremental_ms": TARGET_INCREMENTAL_MS}
        if "ratio" in figures:
            figures["cold_target_met"] = figures["ratio"] <= TARGET_RATIO
        figures["incremental_target_met"] = inc < TARGET_INCREMENTAL_MS
        print(json.dumps(figures))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
