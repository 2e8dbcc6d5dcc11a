"""A tiny flow for runtime tests: each node counts its calls in a file, one waits for a human."""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from core.context import FlowContext
from core.runtime import FlowSpec


class CountingState(TypedDict, total=False):
    counter_file: str
    steps: Annotated[list[str], operator.add]
    answer: Any
    fail_once: bool


def _bump(state: CountingState, node: str) -> None:
    path = Path(state["counter_file"])
    counts = json.loads(path.read_text()) if path.exists() else {}
    counts[node] = counts.get(node, 0) + 1
    path.write_text(json.dumps(counts))


async def prepare(state: CountingState, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    _bump(state, "prepare")
    get_stream_writer()({"node": "prepare", "message": "preparing", "done": 1, "total": 1})
    return {"steps": ["prepare"]}


async def review(state: CountingState) -> dict[str, Any]:
    answer = interrupt({"type": "review", "steps": state["steps"]})
    _bump(state, "review")
    return {"steps": ["review"], "answer": answer}


async def commit(state: CountingState) -> dict[str, Any]:
    _bump(state, "commit")
    path = Path(state["counter_file"]).with_suffix(".fail")
    if state.get("fail_once") and not path.exists():
        path.write_text("failed")
        raise RuntimeError("disk full")
    return {"steps": ["commit"]}


def build_graph() -> StateGraph:
    graph = StateGraph(CountingState, context_schema=FlowContext)
    graph.add_node("prepare", prepare)
    graph.add_node("review", review)
    graph.add_node("commit", commit)
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "review")
    graph.add_edge("review", "commit")
    graph.add_edge("commit", END)
    return graph


def make_input(data: dict[str, Any]) -> dict[str, Any]:
    if "counter_file" not in data:
        raise ValueError("counter_file is required")
    return {"counter_file": data["counter_file"], "fail_once": bool(data.get("fail_once"))}


SPEC = FlowSpec(name="counting", build_graph=build_graph, make_input=make_input)
