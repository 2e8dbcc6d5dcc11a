"""The rubric flow graph.

    START -> load_note -> evaluate -> evaluate_judge -> evaluate_review
      approve -> approve_note -> END
      revise  -> revision_gate -> rewrite -> confirm_revision -> write_revision -> evaluate ...
                              \\-> round_limit -> END (no rounds left)
      edit    -> write_edit -> evaluate ... (or round_limit)
      error   -> record_failure -> END

`evaluate*` are the standard evaluation nodes (core.evaluation.add_evaluation). Interrupts:
`evaluate_review` (approve / revise / edit, spec 4.2) and `confirm_revision` (accept / reject
the diff).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.evaluation import ReviewDecision, add_evaluation
from core.flows.rubric import nodes
from core.flows.rubric.state import RevisionDecision, RubricInput, RubricState
from core.runtime import FlowSpec

FLOW_NAME = "rubric"
PLAIN_NODES = (
    "load_note",
    "revision_gate",
    "rewrite",
    "confirm_revision",
    "write_revision",
    "write_edit",
    "approve_note",
    "round_limit",
    "record_failure",
)
"""The flow's own nodes (functions of `nodes` by these names); the evaluation adds three."""


def build_graph() -> StateGraph[RubricState, FlowContext, RubricState, RubricState]:
    """The uncompiled rubric graph (compile it with a checkpointer)."""
    graph = StateGraph(RubricState, context_schema=FlowContext)
    for name in PLAIN_NODES:
        graph.add_node(name, getattr(nodes, name))
    entry = add_evaluation(
        graph,
        "evaluate",
        nodes.evaluation_options(),
        on_continue="approve_note",
        on_revise="revision_gate",
        on_edit="write_edit",
        on_error="record_failure",
    )
    review = f"{entry}_review"
    graph.add_edge(START, "load_note")
    graph.add_conditional_edges(
        "load_note", nodes.route_after_load, {"evaluate": entry, "end": END}
    )
    graph.add_conditional_edges(
        "revision_gate", nodes.route_revise, {"rewrite": "rewrite", "limit": "round_limit"}
    )
    graph.add_conditional_edges(
        "rewrite", nodes.route_after_rewrite, {"confirm": "confirm_revision", "review": review}
    )
    graph.add_conditional_edges(
        "confirm_revision",
        nodes.route_after_confirm,
        {"write": "write_revision", "review": review, "confirm": "confirm_revision"},
    )
    after_write: dict[Hashable, str] = {"evaluate": entry, "limit": "round_limit", "end": END}
    graph.add_conditional_edges("write_revision", nodes.route_after_write, after_write)
    graph.add_conditional_edges("write_edit", nodes.route_after_write, after_write)
    for last in ("approve_note", "round_limit", "record_failure"):
        graph.add_edge(last, END)
    return graph


def make_input(data: Mapping[str, object]) -> dict[str, object]:
    """Validate a run's input (note path, criteria) into the graph's initial state."""
    return RubricInput.model_validate(data).model_dump()


def flow_spec() -> FlowSpec:
    """How the runtime knows this flow (register it in core/flows/registry.py)."""
    return FlowSpec(
        name=FLOW_NAME,
        build_graph=build_graph,
        make_input=make_input,
        recursion_limit=lambda settings: settings.flows.rubric.recursion_limit,
        human_in_loop=True,
        title="Rubric evaluation",
        note_language=False,  # scores and revises a note in its own language
        failure=failure_of,
        decisions={"evaluation_review": ReviewDecision, "revision_review": RevisionDecision},
    )


def failure_of(state: Mapping[str, object]) -> str | None:
    """A run that ended with outcome `failed` is a failed run in the runs table."""
    if state.get("outcome") != "failed":
        return None
    errors = state.get("errors")
    return str(errors[-1]) if isinstance(errors, list) and errors else "the rubric review failed"


SPEC = flow_spec()
"""The registered spec (core/flows/registry.py collects every flow's SPEC)."""
