"""The note the rubric tests evaluate, its revision, and a scripted evaluation."""

from __future__ import annotations

from typing import Any

from core.evaluation import load_criteria

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
