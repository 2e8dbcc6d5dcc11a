"""The note the rubric tests evaluate, its revision, and a scripted evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.evaluation import load_criteria
from local_llm.testing import Response, ScriptedBackend
from tests.flow_harness import FlowHarness

NOTE_PATH = "notes/Photosynthesis.md"
NOTE_TEXT = """---
tags: [biology]
custom_key: keep me  # a comment
---
# Photosynthesis

Plants turn light into chemical energy.
"""
IDS = load_criteria("default").criteria.ids


def evaluation(score: float) -> dict[str, Any]:
    return {
        "criteria": {
            cid: {
                "rationale": f"{cid} ok",
                "issues": [{"what": "too short", "where": "first line"}],
                "score": score,
            }
            for cid in IDS
        },
        "strengths": ["accurate"],
        "weaknesses": ["no example"],
        "suggestions": ["add an example of a plant"],
        "feedback": "short but right",
    }


REVISED_BODY = (
    "# Photosynthesis\n\nPlants turn light into chemical energy.\n\nFor example, a maple leaf.\n"
)


def write_note(root: Path) -> None:
    (root / NOTE_PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / NOTE_PATH).write_text(NOTE_TEXT, encoding="utf-8")


def rubric_harness(base: Path, responses: list[Response], **settings: Any) -> FlowHarness:
    """The rubric flow over a vault holding NOTE_PATH; the model answers `responses` in order
    (the flow's calls come one at a time: the judge, then the rewriter)."""
    return FlowHarness(
        base,
        "rubric",
        backend=ScriptedBackend(responses),
        vault=write_note,
        make_input=lambda criteria="default", note=NOTE_PATH: {
            "note_path": note,
            "criteria": criteria,
        },
        flows={"rubric": settings} if settings else {},
    )
