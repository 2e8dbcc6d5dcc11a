"""Benchmark: parallel duplicate detection and prompt tokens of the extraction flow.

With a scripted model of fixed latency (200 ms a call), measured in the same run:

1. the wall time of duplicate detection (1.1b) for 20 candidates with the configured
   concurrency, against the same run with concurrency 1 (serial baseline);
   target: at most 1.5 x ceil(20 / concurrency) x 200 ms;
2. the prompt tokens of a whole run (to the review) for a 10-quote and a 300-quote source,
   per step, against the naive baseline of one candidate prompt holding every quote.

The runs go through the real runtime (SQLite checkpoints, store traces) over a copy of the
sample vault. The last line printed is one JSON object with the figures and the targets.

    .venv/bin/python bench/extraction.py [--concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.events import Interrupted, NodeFinished, NodeStarted  # noqa: E402
from core.flows.extraction.graph import SPEC  # noqa: E402
from core.flows.extraction.prompts import candidates_messages  # noqa: E402
from core.services import open_services  # noqa: E402
from core.settings import Settings  # noqa: E402
from local_llm.testing import ScriptedBackend  # noqa: E402
from local_llm.tokens import count_messages  # noqa: E402
from tests.flows.extraction.script import FlowScript, concept, enum_of  # noqa: E402
from tui.demo import sample_vault  # noqa: E402

LATENCY_S = 0.2
MAX_TOKENS = 8192
"""Completion budget of the scripted model: room for 10 concepts per answer."""
CANDIDATES = 20
SOURCE = "03 - Sources/Bench.md"


def source_text(quotes: int) -> str:
    lines = [
        f"> La práctica número {i} de recuperación y el aprendizaje espaciado mejoran la memoria "
        f"a largo plazo cuando se repiten con intervalos crecientes. ^b{i}\n"
        for i in range(quotes)
    ]
    return "---\ntitle: Bench\nauthor: Someone\n---\n# Bench\n\n## Highlights\n" + "\n".join(lines)


def twenty(messages, schema):
    """1.1a: 10 candidates per batch of 10 quotes (two batches), each similar to sample
    concepts but not equal to any, so every one goes to the model."""
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    found = [concept(f"Variante {q} de la práctica espaciada", [q]) for q in ids]
    return {"concepts": found, "notes": ""}


def three_per_batch(messages, schema):
    ids = enum_of(schema, "concepts", "[]", "quote_ids")
    found = [
        concept(f"Idea {ids[i]} sobre la memoria", ids[i::3][:5]) for i in range(min(3, len(ids)))
    ]
    return {"concepts": found, "notes": ""}


async def run_once(base: Path, quotes: int, script: FlowScript, flows: dict, latency: float):
    """One run to the review; (events with timestamps, services figures)."""
    work = Path(tempfile.mkdtemp(dir=base))
    root = work / "vault"
    shutil.copytree(sample_vault(), root)
    (root / SOURCE).write_text(source_text(quotes), encoding="utf-8")
    settings = Settings(
        vault={"path": root},
        data={"directory": work / "data"},
        flows={"extraction": flows},
        models={"max_tokens": MAX_TOKENS},
    )
    backend = ScriptedBackend(answer=script, latency_s=latency)
    async with open_services(settings, {"extraction": SPEC}, backend=backend) as app:
        app.vault.index.sync_files()
        run = app.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
        timed = []
        async for event in app.runtime.stream(run.id):
            timed.append((time.perf_counter(), event))
        assert isinstance(timed[-1][1], Interrupted), timed[-1][1]
        rows = app.store.query(
            "SELECT node, SUM(prompt_tokens), COUNT(*) FROM traces WHERE run_id=? GROUP BY node",
            (run.id,),
        )
        tokens = {row[0]: {"prompt_tokens": row[1], "calls": row[2]} for row in rows}
        over = app.store.query_one(
            "SELECT COUNT(*) FROM traces WHERE run_id=? AND outcome='budget'", (run.id,)
        )[0]
        assert over == 0, f"{over} prompt(s) over the context budget"
        budget = app.llm.budget("default")
    return timed, tokens, budget


def dedup_wall(timed) -> float:
    started = [t for t, e in timed if isinstance(e, NodeStarted) and e.node == "detect_duplicate"]
    finished = [t for t, e in timed if isinstance(e, NodeFinished) and e.node == "detect_duplicate"]
    assert len(finished) == CANDIDATES, len(finished)
    return max(finished) - min(started)


async def main(concurrency: int) -> dict:
    base = Path(tempfile.mkdtemp(prefix="noema-bench-extraction-"))
    try:
        # the fan-out of one duplicate check per candidate (the merged checks are one call)
        flows = {
            "max_critique_iterations": 0,
            "max_quotes_per_batch": 10,
            "duplicate_checks": "per_candidate",
        }
        timed, _, _ = await run_once(
            base,
            CANDIDATES,
            FlowScript(candidates=twenty),
            {**flows, "concurrency": concurrency},
            LATENCY_S,
        )
        parallel = dedup_wall(timed)
        timed, _, _ = await run_once(
            base, CANDIDATES, FlowScript(candidates=twenty), {**flows, "concurrency": 1}, LATENCY_S
        )
        serial = dedup_wall(timed)
        target = 1.5 * math.ceil(CANDIDATES / concurrency) * LATENCY_S
        print(f"duplicate detection, {CANDIDATES} candidates, {LATENCY_S * 1000:.0f} ms a call:")
        print(
            f"  concurrency {concurrency}: {parallel * 1000:.0f} ms   serial: {serial * 1000:.0f} ms   "
            f"speed-up {serial / parallel:.1f}x   target <= {target * 1000:.0f} ms"
        )
        tokens = {}
        for quotes in (10, 300):
            _, per_node, budget = await run_once(
                base, quotes, FlowScript(candidates=three_per_batch), {}, 0.0
            )
            total = sum(v["prompt_tokens"] for v in per_node.values())
            naive = count_messages(
                candidates_messages("Bench", {"author": "Someone"}, _quotes(quotes), "es")
            )
            tokens[quotes] = {
                "total": total,
                "per_node": per_node,
                "naive_single_prompt": naive,
                "budget": budget,
            }
            print(
                f"prompt tokens, {quotes}-quote source: {total} in {sum(v['calls'] for v in per_node.values())} calls "
                f"(one prompt with every quote would be {naive} tokens; budget {budget})"
            )
            for node, figures in sorted(per_node.items()):
                print(
                    f"    {node:<20} {figures['prompt_tokens']:>8} tokens in {figures['calls']} calls"
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {
        "bench": "extraction",
        "latency_ms": LATENCY_S * 1000,
        "candidates": CANDIDATES,
        "concurrency": concurrency,
        "dedup_parallel_ms": round(parallel * 1000),
        "dedup_serial_ms": round(serial * 1000),
        "dedup_target_ms": round(target * 1000),
        "dedup_within_target": parallel <= target,
        "prompt_tokens_10_quotes": tokens[10]["total"],
        "prompt_tokens_300_quotes": tokens[300]["total"],
        "naive_candidate_prompt_300_quotes": tokens[300]["naive_single_prompt"],
        "context_budget": tokens[300]["budget"],
    }


def _quotes(n: int) -> list[dict[str, str]]:
    text = source_text(n)
    return [
        {"id": f"b{i}", "text": line[2:].rsplit(" ^", 1)[0]}
        for i, line in enumerate(x for x in text.splitlines() if x.startswith("> "))
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=Settings().flows.extraction.concurrency)
    figures = asyncio.run(main(parser.parse_args().concurrency))
    print(json.dumps(figures))
