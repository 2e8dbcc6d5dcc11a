"""A small indexed vault of concept notes, a scripted model and the compiled normalization flow."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.concept_notes import render_concept_note
from core.context import FlowContext
from core.domain import Concept
from core.flows.normalization.graph import build_graph
from core.models import langgraph_call_context
from core.settings import Settings
from core.store import Store
from local_llm.testing import CallResponder, ScriptedCall, scripted_client
from vault.index import VaultIndex
from vault.layout import VaultLayout
from vault.writer import VaultWriter

CONCEPTS = {
    "Metacognición": "Pensar sobre el propio pensamiento.",
    "metacognicion": "Saber lo que uno sabe.",
    "ZDP": "Abreviatura de la zona de desarrollo próximo.",
    "Zona de desarrollo próximo": "Lo que un aprendiz logra con ayuda.",
    "Hábito": "Una conducta que se repite.",
    "Hábito atómico": "Un hábito mínimo que se compone.",
    "Deep Work": "Focused work without distraction.",
}


def write_vault(root: Path, concepts: dict[str, str]) -> None:
    folder = root / "08 - Ideas"
    folder.mkdir(parents=True, exist_ok=True)
    for title, summary in concepts.items():
        concept = Concept(title=title, summary=summary, concept=summary)
        (folder / f"{title}.md").write_text(render_concept_note(concept, [], {}), encoding="utf-8")


def listed_names(messages: list[dict[str, Any]]) -> list[str]:
    """The names of a generator prompt's concept list."""
    text = messages[-1]["content"].split("# AVOID")[0]
    return re.findall(r"^- (.+)$", text, re.M)


def avoid_block(messages: list[dict[str, Any]]) -> str:
    return messages[-1]["content"].split("# AVOID")[1]


def is_generator(call: ScriptedCall) -> bool:
    """Whether the call is the generator's (the `generation` node; else `validation`)."""
    assert call.node in ("generation", "validation"), f"no script for node {call.node!r}"
    return call.node == "generation"


def by_node(generator: Any, evaluator: Any) -> CallResponder:
    """Answers the generation node with `generator`, validation with `evaluator` (each a
    `(messages, schema) -> answer` callable, or the answer itself)."""

    def answer(call: ScriptedCall) -> Any:
        handler = generator if is_generator(call) else evaluator
        return handler(call.messages, call.json_schema) if callable(handler) else handler

    return answer


def propose(*pairs: tuple[str, str]) -> Callable[[list[dict], Any], Any]:
    """A generator that proposes the given pairs whose names are both in its prompt."""

    def answer(messages: list[dict], _schema: Any) -> dict:
        names = set(listed_names(messages))
        merges = [
            {"concept_a": a, "concept_b": b, "reason": "same"}
            for a, b in pairs
            if a in names and b in names
        ]
        return {"merges": merges}

    return answer


def weak_when(*names: str) -> Callable[[list[dict], Any], Any]:
    """An evaluator that calls weak every merge mentioning one of `names`."""

    def answer(messages: list[dict], _schema: Any) -> dict:
        text = messages[-1]["content"]
        weak = []
        for line in re.findall(r'^(m\d+): "(.+)" \+ "(.+)"$', text, re.M):
            if line[1] in names or line[2] in names:
                weak.append({"merge_id": line[0], "reason": "hierarchy", "explanation": "x"})
        return {"weak_merges": weak}

    return answer


class Harness:
    """The flow over a real indexed vault with a scripted model."""

    def __init__(self, tmp_path: Path, generator: Any, evaluator: Any, **settings: Any) -> None:
        self.root = tmp_path / "vault"
        if not self.root.exists():
            write_vault(self.root, CONCEPTS)
        self.store = Store(tmp_path / "store.sqlite3")
        layout = VaultLayout()
        index = VaultIndex(self.store, self.root, layout)
        self.settings = Settings(
            data={"directory": tmp_path / "data"}, flows={"normalization": settings}
        )

        self.llm = scripted_client(
            answer=by_node(generator, evaluator), call_context=langgraph_call_context
        )
        self.backend = self.llm.backend()
        vault = SimpleNamespace(
            root=self.root, layout=layout, writer=VaultWriter(self.root), index=index
        )
        self.context = FlowContext(self.settings, self.llm, self.store, vault, run_id="run-1")
        self.app = build_graph().compile(checkpointer=InMemorySaver())

    async def run(self, thread: str = "t1", **input: Any) -> dict[str, Any]:
        config = {"configurable": {"thread_id": thread}}
        self.events: list[dict] = []
        async for mode, chunk in self.app.astream(
            input, config, context=self.context, stream_mode=["custom", "values"]
        ):
            if mode == "custom":
                self.events.append(chunk)
            else:
                state = chunk
        return state

    def calls(self, kind: str = "generator") -> list[Any]:
        calls = self.backend.calls_of("complete")
        return [c for c in calls if is_generator(c) == (kind == "generator")]

    def review_keys(self, review_id: str) -> list[tuple[str, str]]:
        rows = self.store.query(
            "SELECT a_name, b_name FROM normalization_review_items WHERE review_id=?", (review_id,)
        )
        return sorted(tuple(sorted((r[0], r[1]))) for r in rows)


@pytest.fixture
def harness(tmp_path: Path) -> Callable[..., Harness]:
    return lambda generator, evaluator, **settings: Harness(
        tmp_path, generator, evaluator, **settings
    )
