"""Wiring an evaluation into a graph (spec 003, 8.1) and routing after it.

    add_evaluation(graph, "evaluate_lesson", options,
                   on_continue="save_lesson", on_revise="generate_lesson")

adds the nodes `evaluate_lesson` (prepare), `evaluate_lesson_judge` and, with a human,
`evaluate_lesson_review`, and the conditional edges between them. Point the generating node
at the returned entry name (`graph.add_edge("generate_lesson", entry)`).

After the review: approve -> `on_continue`; revise -> `on_revise`; edit -> `on_edit`
(default `on_continue`); any error -> `on_error` (default END). Without a human the verdict
routes: passed -> `on_continue`, failed -> `on_revise`. The routes are those of
`route_after_evaluation`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Literal

from langgraph.graph import END, StateGraph

from core.evaluation.node import create_evaluation_node
from core.evaluation.options import EvaluationNodeOptions, S

if TYPE_CHECKING:
    from core.context import FlowContext

Route = Literal["evaluate", "review", "continue", "revise", "edited", "error"]

_ROUTES: dict[str, Route] = {
    "evaluating": "evaluate",
    "awaiting_review": "review",
    "approved": "continue",
    "revision_requested": "revise",
    "edited": "edited",
}


def evaluation_route(state: Mapping[str, object], status_field: str) -> Route:
    """Where the graph goes given an evaluation's status; anything unknown is `error`."""
    return _ROUTES.get(str(state.get(status_field)), "error")


def route_after_evaluation(status_field: str) -> Callable[[Mapping[str, object]], Route]:
    """A router over one status field, for `add_conditional_edges`."""

    def route(state: Mapping[str, object]) -> Route:
        return evaluation_route(state, status_field)

    route.__name__ = f"route_{status_field}"
    return route


def add_evaluation(
    graph: StateGraph[S, FlowContext, S, S],
    name: str,
    options: EvaluationNodeOptions[S],
    *,
    on_continue: str,
    on_revise: str | None = None,
    on_edit: str | None = None,
    on_error: str = END,
) -> str:
    """Add one evaluation's nodes and edges to `graph`; returns the entry node's name."""
    nodes = create_evaluation_node(options)
    judge_name, review_name = f"{name}_judge", f"{name}_review"
    route = route_after_evaluation(options.status_field)
    revise = on_revise or on_continue
    outcomes: dict[Hashable, str] = {
        "continue": on_continue,
        "revise": revise,
        "edited": on_edit or on_continue,
        "error": on_error,
    }
    graph.add_node(name, nodes.prepare)
    graph.add_node(judge_name, nodes.judge)
    graph.add_conditional_edges(name, route, {"evaluate": judge_name, "error": on_error})
    if options.human_review:
        graph.add_node(review_name, nodes.review)
        graph.add_conditional_edges(judge_name, route, {"review": review_name, **outcomes})
        graph.add_conditional_edges(review_name, route, {"review": review_name, **outcomes})
    else:
        graph.add_conditional_edges(
            judge_name, route, {"continue": on_continue, "revise": revise, "error": on_error}
        )
    return name
