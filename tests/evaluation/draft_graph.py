"""A small generate -> evaluate -> publish graph around the evaluation framework, and scripted
answers for it."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.evaluation import EvaluationFields, EvaluationNodeOptions, add_evaluation, load_criteria


class DraftState(EvaluationFields, total=False):
    draft: str
    draft_status: str
    draft_evaluation: dict
    draft_decision: dict
    summary_status: str
    generated: Annotated[int, operator.add]
    published: bool


def answer(scores: dict[str, float], **extra: Any) -> dict[str, Any]:
    """A well-formed model answer for the given per-criterion scores."""
    return {
        "criteria": {
            cid: {
                "rationale": f"{cid} rationale",
                "issues": [{"what": f"{cid} issue", "where": "intro"}],
                "score": s,
            }
            for cid, s in scores.items()
        },
        "strengths": ["clear"],
        "weaknesses": ["short"],
        "suggestions": ["add an example"],
        "feedback": "fine overall",
        **extra,
    }


DEFAULT_IDS = load_criteria("default").criteria.ids


def uniform(score: float) -> dict[str, Any]:
    """An answer that gives every default criterion the same score."""
    return answer(dict.fromkeys(DEFAULT_IDS, score))


def build(options: EvaluationNodeOptions, drafts: list[str] | None = None):
    """generate -> evaluation -> publish; the generator hands out `drafts` in turn."""
    texts = list(drafts or ["A first draft about photosynthesis."])

    def generate(state: DraftState) -> dict[str, Any]:
        index = min(state.get("generated", 0), len(texts) - 1)
        return {
            "draft": texts[index],
            "draft_status": "completed",
            "generated": 1,
            "summary_status": "done",
        }

    def publish(state: DraftState) -> dict[str, Any]:
        return {"published": True}

    graph = StateGraph(DraftState, context_schema=FlowContext)
    graph.add_node("generate", generate)
    graph.add_node("publish", publish)
    graph.add_edge(START, "generate")
    entry = add_evaluation(
        graph, "evaluate_draft", options, on_continue="publish", on_revise="generate"
    )
    graph.add_edge("generate", entry)
    graph.add_edge("publish", END)
    return graph.compile(checkpointer=InMemorySaver())


def options(**changes: Any) -> EvaluationNodeOptions:
    base: dict[str, Any] = {
        "content_type": "draft",
        "content_extractor": lambda s: s.get("draft"),
        "result_field": "draft_evaluation",
        "status_field": "draft_status",
        "content_field": "draft",
        "dependents": ("summary_status",),
        "decision_field": "draft_decision",
        "timeout_s": 5,
    }
    base.update(changes)
    return EvaluationNodeOptions(**base)
