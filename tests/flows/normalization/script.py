"""What the normalization tests share: a vault of concept notes and scripted answers for the
two model calls (the `generation` node proposes merges, `validation` calls some weak)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.concept_notes import render_concept_note
from core.domain import Concept
from local_llm.testing import CallResponder, ScriptedBackend, ScriptedCall
from tests.flow_harness import FlowHarness

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


def normalization_harness(
    base: Path, generator: Any, evaluator: Any, **settings: Any
) -> FlowHarness:
    """The flow over the vault of CONCEPTS (written once per `base`: harnesses on one `base`
    are runs that follow each other on one vault and store), scripted by node."""
    return FlowHarness(
        base,
        "normalization",
        backend=ScriptedBackend(answer=by_node(generator, evaluator)),
        vault=lambda root: write_vault(root, CONCEPTS),
        run_id="run-1",
        shared=True,
        flows={"normalization": settings},
    )


def calls(h: FlowHarness, kind: str = "generator") -> list[ScriptedCall]:
    """The generator's calls (`generation` node) or the evaluator's (`validation`)."""
    return [c for c in h.backend.calls_of("complete") if is_generator(c) == (kind == "generator")]


def review_keys(h: FlowHarness, review_id: str) -> list[tuple[str, str]]:
    """The name pairs a stored review holds, each pair and the list sorted."""
    rows = h.store.query(
        "SELECT a_name, b_name FROM normalization_review_items WHERE review_id=?", (review_id,)
    )
    return sorted((min(r[0], r[1]), max(r[0], r[1])) for r in rows)
