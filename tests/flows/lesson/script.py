"""What the lesson tests share: the sample vault, good Spanish paragraphs, and `LessonScript`,
which answers each lesson call by the node that makes it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from core.evaluation import load_criteria
from local_llm.testing import ScriptedBackend, ScriptedCall
from tests.flow_harness import FlowHarness
from tests.flows.lesson.corpus import PARAGRAPHS

SAMPLE_VAULT = Path(__file__).resolve().parents[3] / "tui" / "sample_vault"
CONCEPT = "Práctica de recuperación"
IDS = load_criteria("lesson").criteria.ids
GOOD = PARAGRAPHS["es"]


NODE_KINDS = {
    "planner": "plan",
    "expand_section": "section",
    "smoother": "smooth",
    "self_review": "review",
    "targeted_fix": "fix",
}
"""What each lesson node asks the model for; judge nodes (`judge_*`) are "judge"."""


def kind_of(node: str) -> str:
    """The kind of answer a node asks for (the node is what the client reports for the call)."""
    if node in NODE_KINDS:
        return NODE_KINDS[node]
    if node.startswith("judge"):
        return "judge"
    raise AssertionError(f"the lesson script has no answer for node {node!r}")


class LessonScript:
    """Answers each lesson call by the node that makes it; judges answer by their model name.

    Used as `ScriptedBackend(answer=script)`."""

    def __init__(self) -> None:
        self.sections: list[str] = [f"{GOOD[0]}\n\n{GOOD[1]}", f"{GOOD[2]}\n\n{GOOD[3]}"]
        self.bad_first: dict[int, str] = {}
        """Section index -> text the first expansion of that section returns."""
        self.review: dict[str, Any] = {
            "status": "PASS",
            "reasoning": "fine",
            "issues": [],
            "patched_content": "",
        }
        self.scores: dict[str, list[float]] = {"judge-a": [0.9], "judge-b": [0.9], "judge-c": [0.9]}
        self.asked: dict[str, int] = {}

    def count(self, kind: str) -> int:
        return self.asked.get(kind, 0)

    def __call__(self, call: ScriptedCall) -> Any:
        schema: Any = call.json_schema
        user = call.messages[-1]["content"]
        model = call.config.model if call.config is not None else ""
        kind = kind_of(call.node)
        self.asked[kind] = self.asked.get(kind, 0) + 1
        if kind == "plan":
            count = schema["properties"]["sections"]["maxItems"]
            return {
                "title": "Práctica de recuperación",
                "objectives": ["Explicar la práctica"],
                "sections": [{"title": f"Parte {n + 1}", "goal": "enseñar"} for n in range(count)],
            }
        if kind == "section":
            index = int(user.split("Write section ")[1].split(":")[0]) - 1
            first = self.asked.get(f"section{index}", 0) == 0
            self.asked[f"section{index}"] = self.asked.get(f"section{index}", 0) + 1
            if first and index in self.bad_first:
                return {"text": self.bad_first[index]}
            return {"text": self.sections[index % len(self.sections)]}
        if kind == "smooth":
            count = schema["properties"]["transitions"]["maxItems"]
            return {
                "transitions": ["Ahora veamos el siguiente paso con calma."] * count,
                "terminology": [{"use": "commit", "instead_of": "confirmación"}],
            }
        if kind == "review":
            return self.review
        if kind == "fix":
            return {"text": f"{GOOD[4]}\n\n{GOOD[5]}"}
        return self._judge(model)

    def _judge(self, model: str) -> dict[str, Any]:
        scores = self.scores.get(model) or self.scores["*"]
        score = scores.pop(0) if len(scores) > 1 else scores[0]
        return {
            "criteria": {
                cid: {
                    "rationale": "ok",
                    "issues": [{"what": "x", "where": "Parte 2"}],
                    "score": score,
                }
                for cid in IDS
            },
            "strengths": ["clear"],
            "weaknesses": ["short"],
            "suggestions": [],
            "feedback": "ok",
        }


def lesson_input(**data: Any) -> dict[str, Any]:
    """A run's input: generate a lesson on CONCEPT unless told otherwise."""
    data.setdefault("mode", "generate")
    if data["mode"] == "generate":
        data.setdefault("concept", CONCEPT)
    return data


def lesson_harness(base: Path, **lesson: Any) -> FlowHarness:
    """The lesson flow over a copy of the sample vault, `LessonScript` answering by node; a
    writer and three judges (`judge-a`, `judge-b`, the tiebreak `judge-c`). Open it with
    `async with` (it runs through the runtime)."""
    script = LessonScript()
    roles = {
        "judge": {"model": "judge-a"},
        "judge_secondary": {"model": "judge-b"},
        "judge_tiebreak": {"model": "judge-c"},
    }
    return FlowHarness(
        base,
        "lesson",
        backend=ScriptedBackend(answer=script),
        script=script,
        vault=lambda root: shutil.copytree(SAMPLE_VAULT, root),
        make_input=lesson_input,
        models={"model": "writer", "roles": roles, "embeddings_enabled": False},
        flows={"lesson": {"section_count": 2, "tiebreak_role": "judge_tiebreak", **lesson}},
    )


def trace_phases(h: FlowHarness, run_id: str) -> list[tuple[str, str]]:
    """The lesson trace's (phase, status) rows of a run, in order."""
    rows = h.store.query(
        "SELECT phase, status FROM lesson_traces WHERE run_id = ? ORDER BY id", (run_id,)
    )
    return [(r[0], r[1]) for r in rows]
