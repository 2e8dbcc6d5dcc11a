"""The shared store in PostgreSQL against the SQLite default, on this machine.

1. A used SQLite store: RUNS runs of the counting flow stopped at their review (their
   LangGraph checkpoints), TRACES traces, tutor sessions and mastery, a merge journal.
2. `noema store migrate` into a throwaway PostgreSQL cluster (the server installed here,
   tests/fixtures/postgres.py, with fsync on as a real server): rows per table, checkpoints,
   seconds, every count checked.
3. The same run stretch (start -> review -> resume -> done) on both backends, ROUNDS times:
   median milliseconds (PostgreSQL over 127.0.0.1: a network round trip per statement).

    python bench/shared_store.py        (a few minutes at most; ends with one line of JSON)
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.context import FlowContext  # noqa: E402
from core.runtime import Runtime  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.store import Store, open_store  # noqa: E402
from core.store.copy import migrate_to_postgres  # noqa: E402
from core.store.open import conninfo  # noqa: E402
from tests.core.counting_flow import SPEC  # noqa: E402
from tests.fixtures.postgres import PASSWORD, PASSWORD_ENV, Cluster  # noqa: E402

RUNS = 200
TRACES = 20_000
ROUNDS = 30
TARGET_MIGRATE_S = 60.0
TARGET_SLOWDOWN = 4.0
"""A run stretch on PostgreSQL (localhost) at most this many times SQLite's."""


def runtime(settings: Settings, store: Store) -> Runtime:
    return Runtime(
        settings, store, {"counting": SPEC}, lambda r: FlowContext(settings, None, store, run_id=r)
    )


async def fill(settings: Settings, store: Store, counter: Path) -> None:
    async with runtime(settings, store) as rt:
        for _ in range(RUNS):
            run = rt.start("counting", {"counter_file": str(counter)})
            await rt.run_until_pause(run.id)
    store.executemany(
        "INSERT INTO traces (run_id, flow, node, role, model, prompt_tokens, completion_tokens,"
        " latency_ms, outcome, created_at) VALUES (?, 'extraction', 'candidates', 'default',"
        " 'gemma3-270m', ?, ?, ?, 'ok', ?)",
        [
            (f"run{i % RUNS}", 900 + i % 50, 120, 2100.5, f"2026-01-01T00:00:{i % 60:02}")
            for i in range(TRACES)
        ],
    )
    store.executemany(
        "INSERT INTO tutor_sessions (id, title, status, mastery, created_at, updated_at)"
        " VALUES (?, ?, 'active', 0.5, 'a', 'a')",
        [(f"s{i}", f"Zona de desarrollo próximo {i} 🧠") for i in range(100)],
    )
    store.executemany(
        "INSERT INTO tutor_mastery VALUES (?, ?, 'Zona', 0.5, '2026-01-01T00:00:00')",
        [(f"s{i}", f"c{j}") for i in range(100) for j in range(5)],
    )


async def stretch(settings: Settings, store: Store, counter: Path) -> list[float]:
    times = []
    async with runtime(settings, store) as rt:
        for _ in range(ROUNDS):
            started = time.perf_counter()
            run = rt.start("counting", {"counter_file": str(counter)})
            await rt.run_until_pause(run.id)
            await rt.run_until_pause(run.id, "yes", resume=True)
            times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    cluster = Cluster(durable=True).start()  # fsync on: SQLite's store syncs its commits too
    os.environ[PASSWORD_ENV] = PASSWORD
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            local = Settings(data={"directory": base / "data"})
            store = Store(local.store_path)
            t0 = time.perf_counter()
            asyncio.run(fill(local, store, base / "c.json"))
            fill_s = time.perf_counter() - t0
            store.close()
            url = cluster.database()
            shared = {"backend": "postgres", "url": url, "password_env": PASSWORD_ENV}
            target = Settings(data={"directory": base / "data"}, store=shared)
            copied = migrate_to_postgres(local, conninfo(target.store), url)
            for table, (source, dest) in copied.tables.items():
                print(f"{table:28} {dest:>7} row(s) (SQLite {source})")
            print(
                f"checkpoints {copied.checkpoints}, writes {copied.writes}, "
                f"{copied.seconds:.1f} s (filling the SQLite store took {fill_s:.1f} s)"
            )

            sqlite_store = Store(base / "bench-sqlite" / "noema.sqlite3")
            sqlite_settings = Settings(data={"directory": base / "bench-sqlite"})
            sqlite_ms = asyncio.run(stretch(sqlite_settings, sqlite_store, base / "d.json"))
            sqlite_store.close()
            pg_settings = Settings(
                data={"directory": base / "bench-pg"}, store={**shared, "url": cluster.database()}
            )
            pg_store = open_store(pg_settings)
            pg_ms = asyncio.run(stretch(pg_settings, pg_store, base / "e.json"))
            pg_store.close()
    finally:
        cluster.stop()
    sqlite_median, pg_median = statistics.median(sqlite_ms), statistics.median(pg_ms)
    print(f"run stretch: SQLite {sqlite_median:.1f} ms, PostgreSQL {pg_median:.1f} ms (median)")
    rows = {t: dest for t, (_, dest) in copied.tables.items() if dest}
    result = {
        "load_avg_1m": os.getloadavg()[0],
        "migrate_s": round(copied.seconds, 2),
        "migrate_rows": rows,
        "checkpoints": copied.checkpoints[1],
        "checkpoint_writes": copied.writes[1],
        "counts_match": not copied.mismatches,
        "run_stretch_ms": {"sqlite": round(sqlite_median, 1), "postgres": round(pg_median, 1)},
        "targets": {"migrate_s": TARGET_MIGRATE_S, "postgres_over_sqlite": TARGET_SLOWDOWN},
        "met": not copied.mismatches
        and copied.seconds <= TARGET_MIGRATE_S
        and pg_median <= TARGET_SLOWDOWN * sqlite_median,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
