"""A tiny flow that waits on the model between two counted nodes (stop and continue tests)."""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel

from core.context import FlowContext
from core.runtime import FlowSpec


class Pong(BaseModel):
    reply: Literal["pong"]


class ModelState(TypedDict, total=False):
    counter_file: str
    steps: Annotated[list[str], operator.add]


def bump(state: ModelState, node: str) -> None:
    path = Path(state["counter_file"])
    counts = json.loads(path.read_text()) if path.exists() else {}
    counts[node] = counts.get(node, 0) + 1
    path.write_text(json.dumps(counts))


def counts(path: Path) -> dict[str, int]:
    return json.loads(path.read_text()) if path.exists() else {}


async def read(state: ModelState) -> dict[str, Any]:
    bump(state, "read")
    return {"steps": ["read"]}


async def ask(state: ModelState, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    messages = [{"role": "user", "content": 'Reply {"reply": "pong"}'}]
    await runtime.context.llm.structured(messages, Pong, role="default")
    bump(state, "ask")
    return {"steps": ["ask"]}


async def write(state: ModelState) -> dict[str, Any]:
    bump(state, "write")
    return {"steps": ["write"]}


def build_graph() -> StateGraph:
    graph = StateGraph(ModelState, context_schema=FlowContext)
    for name, node in (("read", read), ("ask", ask), ("write", write)):
        graph.add_node(name, node)
    graph.add_edge(START, "read")
    graph.add_edge("read", "ask")
    graph.add_edge("ask", "write")
    graph.add_edge("write", END)
    return graph


SPEC = FlowSpec(
    name="asking",
    build_graph=build_graph,
    make_input=lambda data: {"counter_file": data["counter_file"]},
)
