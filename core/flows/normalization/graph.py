"""The normalization graph (spec 000): a generator <-> evaluator loop with convergence.

    START -> load -> generation -> validation -> (continue) generation ...
                  \\                          \\-> (end) finish -> END
                   \\-> finish (fewer than two concepts)

No interrupt: the run ends by storing a review (core.merges.reviews) that the review screen
or `noema merges` works through; applying merges is core.merges.apply.
"""

from __future__ import annotations

from collections.abc import Mapping

from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.flows.normalization import nodes
from core.flows.normalization.state import NormalizationInput, NormalizationState
from core.runtime import FlowSpec

FLOW_NAME = "normalization"


def build_graph() -> StateGraph[
    NormalizationState, FlowContext, NormalizationState, NormalizationState
]:
    """The uncompiled normalization graph."""
    graph = StateGraph(NormalizationState, context_schema=FlowContext)
    graph.add_node("load", nodes.load)
    graph.add_node("generation", nodes.generation)
    graph.add_node("validation", nodes.validation)
    graph.add_node("finish", nodes.finish)
    graph.add_edge(START, "load")
    graph.add_conditional_edges(
        "load", nodes.route_after_load, {"generation": "generation", "finish": "finish"}
    )
    graph.add_edge("generation", "validation")
    graph.add_conditional_edges(
        "validation", nodes.route_convergence, {"continue": "generation", "end": "finish"}
    )
    graph.add_edge("finish", END)
    return graph


def make_input(data: Mapping[str, object]) -> dict[str, object]:
    """Validate a run's input into the initial state."""
    return NormalizationInput.model_validate(data).model_dump()


SPEC = FlowSpec(
    name=FLOW_NAME,
    build_graph=build_graph,
    make_input=make_input,
    recursion_limit=lambda settings: settings.flows.normalization.recursion_limit,
    human_in_loop=False,
    title="Concept normalization",
    note_language=False,  # merges keep each note's own language
)
"""The registered spec (core/flows/registry.py)."""
