"""Benchmark: bulk extraction over a pool of 1, 2 and 3 model servers, and one killed mid-run.

Three OpenAI-compatible test servers (tests/servers: real HTTP processes on 127.0.0.1), each
answering one request at a time (`--slots 1`, as llama.cpp with `--parallel 1`) in a fixed
time per call, with answers a good model would give (tests/servers/responders.py). A vault
with a backlog of 60 unprocessed sources is extracted with `core.backlog.Backlog` (what
`noema extract --all` runs) through litellm's Router, into a fresh vault and store each time:

1. throughput with 1, 2 and 3 servers (sources reaching their review per minute);
   target: 3 servers at least 2.5x one server (the baseline, measured in the same run);
2. 3 servers, one killed (SIGKILL) once a third of the calls are answered;
   target: every source still reaches its review, none has two runs or two reviews.

Prints the figures; the last line is one JSON object with the figures and the targets.

    .venv/bin/python bench/pool.py [--sources 60] [--latency-ms 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.backlog import Backlog  # noqa: E402
from core.flows.registry import open_app  # noqa: E402
from core.settings import load_settings  # noqa: E402
from tests.flows.extraction.backlog import backlog_vault, pool_settings  # noqa: E402
from tests.servers.handle import FakeServer  # noqa: E402

TARGET_SPEEDUP = 2.5


async def extract(work: Path, servers: list[FakeServer], sources: int, kill_after: int = 0):
    """One pass over a fresh backlog; (seconds, counts, store figures)."""
    vault, data = work / "vault", work / "data"
    backlog_vault(vault, sources)
    settings = load_settings(pool_settings(work / "s.toml", vault, data, [s.url for s in servers]))
    async with open_app(settings) as services:
        await services.vault.index.sync_async()
        if services.llm.warming is not None:  # start-up work, not the pool's time
            await asyncio.to_thread(services.llm.warming.join)
        await services.llm.prepare("default")
        killer = Killer(servers[-1], servers, kill_after) if kill_after else None
        backlog = Backlog(services)
        started = time.perf_counter()
        await backlog.run()
        seconds = time.perf_counter() - started
        if killer is not None:
            killer.stop()
        figures = store_figures(services.store)
        figures["killed_at_calls"] = killer.killed_at if killer else None
    return seconds, backlog.counts, figures


def store_figures(store) -> dict:
    """Runs per source, reviews reached, calls per deployment, from the store."""
    runs = store.query("SELECT target, status FROM runs WHERE flow = 'extraction'")
    per_source: dict[str, int] = {}
    for target, _status in runs:
        per_source[target] = per_source.get(target, 0) + 1
    statuses = [status for _target, status in runs]
    deployments = store.query(
        "SELECT deployment, COUNT(*) FROM traces WHERE outcome = 'ok' GROUP BY deployment"
    )
    return {
        "sources_with_a_run": len(per_source),
        "sources_with_two_runs": sum(1 for n in per_source.values() if n > 1),
        "awaiting_review": statuses.count("awaiting_review"),
        "other_statuses": sorted(s for s in statuses if s != "awaiting_review"),
        "calls_per_deployment": {row[0]: row[1] for row in deployments},
    }


class Killer:
    """Kills one server (SIGKILL) once the pool has answered `after` calls."""

    def __init__(self, victim: FakeServer, servers: list[FakeServer], after: int) -> None:
        self.victim, self.servers, self.after = victim, servers, after
        self.killed_at: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            answered = sum(s.load()["chats"] for s in self.servers if s.alive)
            if answered >= self.after:
                self.killed_at = answered
                self.victim.kill()
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


async def scenario(base: Path, count: int, sources: int, latency_ms: float, kill: bool = False):
    work = Path(tempfile.mkdtemp(dir=base))
    servers = [
        FakeServer.start("openai", latency_ms=latency_ms, slots=1, responder="extraction")
        for _ in range(count)
    ]
    try:
        kill_after = sources * 4 // 3 if kill else 0  # a third of the ~4 calls per source
        return await extract(work, servers, sources, kill_after)
    finally:
        for server in servers:
            server.stop()


async def main(sources: int, latency_ms: float) -> dict:
    base = Path(tempfile.mkdtemp(prefix="noema-bench-pool-"))
    results = {}
    try:
        for count in (1, 2, 3):
            seconds, counts, figures = await scenario(base, count, sources, latency_ms)
            results[count] = (seconds, counts, figures)
            print(
                f"{count} server(s): {counts.total} sources in {seconds:.1f} s = "
                f"{counts.total / seconds * 60:.1f} sources/min; {counts.line()}; "
                f"calls per server {sorted(figures['calls_per_deployment'].values())}"
            )
        k_seconds, k_counts, killed = await scenario(base, 3, sources, latency_ms, kill=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    rate = {n: results[n][1].total / results[n][0] * 60 for n in results}
    speedup = rate[3] / rate[1]
    reached = killed["awaiting_review"]
    every_review = reached == k_counts.total and killed["other_statuses"] == []
    print(
        f"3 servers, one killed after {killed['killed_at_calls']} calls: {k_counts.total} sources "
        f"in {k_seconds:.1f} s; {reached} reached their review; sources with two runs: "
        f"{killed['sources_with_two_runs']}; calls per server "
        f"{sorted(killed['calls_per_deployment'].values())}"
    )
    print(
        f"speed-up with 2 servers {rate[2] / rate[1]:.2f}x, with 3 {speedup:.2f}x "
        f"(target >= {TARGET_SPEEDUP}x); load average {os.getloadavg()[0]:.1f}"
    )
    return {
        "bench": "pool",
        "sources": results[1][1].total,
        "latency_ms": latency_ms,
        "slots_per_server": 1,
        "sources_per_min": {str(n): round(rate[n], 1) for n in rate},
        "seconds": {str(n): round(results[n][0], 1) for n in results},
        "speedup_2": round(rate[2] / rate[1], 2),
        "speedup_3": round(speedup, 2),
        "speedup_target": TARGET_SPEEDUP,
        "speedup_met": speedup >= TARGET_SPEEDUP,
        "killed_after_calls": killed["killed_at_calls"],
        "killed_seconds": round(k_seconds, 1),
        "killed_reached_review": reached,
        "killed_sources": k_counts.total,
        "killed_sources_with_two_runs": killed["sources_with_two_runs"],
        "killed_target_met": every_review and killed["sources_with_two_runs"] == 0,
        "load_average": round(os.getloadavg()[0], 1),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=60)
    parser.add_argument("--latency-ms", type=float, default=300.0)
    args = parser.parse_args()
    figures = asyncio.run(main(args.sources, args.latency_ms))
    print(json.dumps(figures))
