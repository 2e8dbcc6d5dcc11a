"""Per-node orchestration overhead of noema's runtime against bare LangGraph.

Both run the same linear graph of NODES nodes on the same SQLite checkpointer (`core.checkpoints.open_checkpointer`:
LangGraph's SqliteSaver in a thread of its own, WAL, durability "sync"). The bare graph's nodes return at once and are streamed with plain
`astream`. noema's graph runs through `core.runtime.Runtime` (typed events, run rows), and every
node makes one `structured()` call to a zero-latency scripted model (validation, token count,
a trace row in the store). The difference is what noema adds per node.

    python bench/overhead.py
"""

from __future__ import annotations

import asyncio
import json
import operator
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.runtime import Runtime as GraphRuntime  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from core.checkpoints import open_checkpointer  # noqa: E402
from core.context import FlowContext  # noqa: E402
from core.runtime import FlowSpec  # noqa: E402
from core.services import open_services  # noqa: E402
from core.settings import Settings  # noqa: E402
from local_llm.testing import ScriptedBackend  # noqa: E402

NODES = 20
REPEATS = 30
TARGET_MS = 3.0
TARGET_RATIO = 1.5


class State(TypedDict, total=False):
    steps: Annotated[list[int], operator.add]


class Step(BaseModel):
    step: int
    note: str


def bare_graph() -> StateGraph:
    graph = StateGraph(State)
    for index in range(NODES):
        graph.add_node(f"n{index}", lambda state, i=index: {"steps": [i]})
    return _chain(graph)


def noema_graph() -> StateGraph:
    graph = StateGraph(State, context_schema=FlowContext)
    for index in range(NODES):
        graph.add_node(f"n{index}", _model_node(index))
    return _chain(graph)


def _model_node(index: int):
    async def node(state: State, runtime: GraphRuntime[FlowContext]) -> dict[str, Any]:
        messages = [{"role": "user", "content": f"step {index}"}]
        answer = await runtime.context.llm.structured(messages, Step)
        return {"steps": [answer.step]}

    return node


def _chain(graph: StateGraph) -> StateGraph:
    graph.add_edge(START, "n0")
    for index in range(NODES - 1):
        graph.add_edge(f"n{index}", f"n{index + 1}")
    graph.add_edge(f"n{NODES - 1}", END)
    return graph


async def bare_run(app, repeat: int) -> float:
    """Milliseconds per node of one bare run."""
    config = {"configurable": {"thread_id": f"bare-{repeat}"}}
    start = time.perf_counter()
    async for _ in app.astream({"steps": []}, config, stream_mode="updates", durability="sync"):
        pass
    return (time.perf_counter() - start) * 1000 / NODES


async def noema_run(services) -> float:
    """Milliseconds per node of one run through noema's runtime."""
    run = services.runtime.start("bench", {"steps": []})
    start = time.perf_counter()
    events = await services.runtime.run_until_pause(run.id)
    elapsed = time.perf_counter() - start
    assert type(events[-1]).__name__ == "Done", events[-1]
    return elapsed * 1000 / NODES


async def measure(tmp: Path) -> tuple[list[float], list[float], int]:
    """Bare and noema runs alternate, so both see the same load on a shared machine."""
    settings = Settings(data={"directory": tmp / "noema"})
    backend = ScriptedBackend(lambda messages, schema: {"step": 1, "note": "ok"})
    spec = FlowSpec(name="bench", build_graph=noema_graph, human_in_loop=True)
    bare, noema = [], []
    async with (
        open_checkpointer(tmp / "bare.sqlite3") as saver,
        open_services(settings, {"bench": spec}, backend=backend) as services,
    ):
        app = bare_graph().compile(checkpointer=saver)
        for repeat in range(REPEATS + 1):
            bare_ms, noema_ms = await bare_run(app, repeat), await noema_run(services)
            if repeat:  # the first pair warms caches
                bare.append(bare_ms)
                noema.append(noema_ms)
        traces = services.store.query_one("SELECT count(*) FROM traces")[0]
    return bare, noema, traces


async def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        bare, noema, traces = await measure(Path(tmp))
    bare_ms = statistics.median(bare)
    noema_ms = statistics.median(noema)
    print(f"nodes per run: {NODES}, runs: {REPEATS} each, alternating (median per-node times)")
    print(f"bare LangGraph + SqliteSaver      : {bare_ms:.3f} ms/node")
    print(f"noema runtime + model call + trace: {noema_ms:.3f} ms/node  ({traces} traces stored)")
    print(f"noema's own share per node        : {noema_ms - bare_ms:.3f} ms")
    print(f"ratio noema / bare                : {noema_ms / bare_ms:.2f}")
    print(f"load average (1 min)              : {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return {
        "per_node_ms": round(noema_ms, 3),
        "bare_per_node_ms": round(bare_ms, 3),
        "added_per_node_ms": round(noema_ms - bare_ms, 3),
        "ratio_vs_bare": round(noema_ms / bare_ms, 3),
        "target_per_node_ms": TARGET_MS,
        "target_ratio_vs_bare": TARGET_RATIO,
    }


if __name__ == "__main__":
    figures = asyncio.run(main())
    print(json.dumps(figures))
