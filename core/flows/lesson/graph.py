"""The lesson flow graph (spec 001, Stage 6 with self-review and a judge cascade).

generate: load_sources -> planner -> expand_section x N (Send) -> assembler -> smoother
review:   load_lesson
-> heuristics -> self_review -> judge_primary [-> judge_secondary [-> judge_tiebreak]]
-> verdict -> write_lesson
            \\-> targeted_fix -> heuristics (once)
            \\-> prepare_regen -> expand_section ... (at most max_regenerations)
            \\-> escalate (interrupt: accept / regenerate / judge / edit / reject)
heuristics and self_review may regenerate, re-check a self-fix, or (review mode) stop a
broken lesson before any judge (caught).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Literal

from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.flows.lesson import finish, judging, nodes, review_nodes
from core.flows.lesson.state import LessonDecision, LessonInput, LessonState
from core.runtime import FlowSpec

FLOW_NAME = "lesson"
STEPS = ("Planner", "Expander", "Assembler", "Smoother", "Self-Review", "Judge")
"""The six steps the screen shows, in order."""
NODE_STEP = {
    "load_sources": 0,
    "planner": 0,
    "expand_section": 1,
    "prepare_regen": 1,
    "assembler": 2,
    "smoother": 3,
    "load_lesson": 4,
    "heuristics": 4,
    "self_review": 4,
    "caught": 5,
    "judge_primary": 5,
    "judge_secondary": 5,
    "judge_tiebreak": 5,
    "verdict": 5,
    "targeted_fix": 5,
    "escalate": 5,
    "apply_decision": 5,
    "write_lesson": 5,
}
"""Which step each node belongs to."""


def route_start(state: LessonState) -> Literal["generate", "review"]:
    return "review" if state.get("mode") == "review" else "generate"


NODES: dict[str, Callable[..., object]] = {
    "load_sources": nodes.load_sources,
    "load_lesson": nodes.load_lesson,
    "planner": nodes.planner,
    "expand_section": nodes.expand_section,
    "assembler": nodes.assembler,
    "smoother": nodes.smoother,
    "heuristics": review_nodes.heuristics,
    "self_review": review_nodes.self_review,
    "prepare_regen": review_nodes.prepare_regen,
    "caught": review_nodes.caught,
    "judge_primary": judging.judge_primary,
    "judge_secondary": judging.judge_secondary,
    "judge_tiebreak": judging.judge_tiebreak,
    "verdict": judging.verdict,
    "targeted_fix": judging.targeted_fix,
    "escalate": finish.escalate,
    "apply_decision": finish.apply_decision,
    "write_lesson": finish.write_lesson,
}


def route_decision(state: LessonState) -> Literal["edit", "judge"]:
    return "edit" if (state.get("decision") or {}).get("action") == "edit" else "judge"


def route_escalation(state: LessonState) -> str:
    action = finish.route_escalation(state)
    if action == "regenerate" and not state.get("plan"):
        return "escalate"  # a reviewed note has no plan to regenerate from
    return action


Graph = StateGraph[LessonState, FlowContext, LessonState, LessonState]


def build_graph() -> Graph:
    """The uncompiled lesson graph (compile it with a checkpointer)."""
    graph = StateGraph(LessonState, context_schema=FlowContext)
    for name, node in NODES.items():
        graph.add_node(name, node)
    _add_writing(graph)
    _add_checks(graph)
    return graph


def _add_writing(graph: Graph) -> None:
    """Plan, write the sections in parallel, assemble, smooth (or load a lesson to review)."""
    graph.add_conditional_edges(
        START, route_start, {"generate": "load_sources", "review": "load_lesson"}
    )
    graph.add_edge("load_sources", "planner")
    graph.add_conditional_edges("planner", nodes.fan_out, ["expand_section"])
    graph.add_conditional_edges("prepare_regen", nodes.fan_out, ["expand_section"])
    graph.add_edge("expand_section", "assembler")
    graph.add_edge("assembler", "smoother")
    graph.add_edge("smoother", "heuristics")
    graph.add_edge("load_lesson", "heuristics")


def _add_checks(graph: Graph) -> None:
    """Heuristics, self-review, the judges' cascade, the escalation, the written note."""
    to_judge: dict[Hashable, str] = {
        "regenerate": "prepare_regen",
        "judge": "judge_primary",
        "caught": "caught",
    }
    graph.add_conditional_edges(
        "heuristics", review_nodes.route_heuristics, to_judge | {"self_review": "self_review"}
    )
    graph.add_conditional_edges(
        "self_review", review_nodes.route_self_review, to_judge | {"recheck": "heuristics"}
    )
    graph.add_conditional_edges(
        "judge_primary",
        judging.route_primary,
        {"secondary": "judge_secondary", "verdict": "verdict"},
    )
    graph.add_conditional_edges(
        "judge_secondary",
        judging.route_secondary,
        {"tiebreak": "judge_tiebreak", "verdict": "verdict"},
    )
    graph.add_edge("judge_tiebreak", "verdict")
    graph.add_conditional_edges(
        "verdict",
        judging.route_verdict,
        {
            "accept": "write_lesson",
            "fix": "targeted_fix",
            "regenerate": "prepare_regen",
            "escalate": "escalate",
        },
    )
    graph.add_edge("targeted_fix", "heuristics")
    graph.add_conditional_edges(
        "escalate",
        route_escalation,
        {
            "accept": "write_lesson",
            "reject": "write_lesson",
            "regenerate": "prepare_regen",
            "judge": "apply_decision",
            "edit": "apply_decision",
            "escalate": "escalate",
        },
    )
    graph.add_conditional_edges(
        "apply_decision", route_decision, {"edit": "heuristics", "judge": "judge_primary"}
    )
    graph.add_edge("caught", "write_lesson")
    graph.add_edge("write_lesson", END)


def make_input(data: Mapping[str, object]) -> dict[str, object]:
    """Validate a run's input into the graph's initial state."""
    return LessonInput.model_validate(data).model_dump()


SPEC = FlowSpec(
    name=FLOW_NAME,
    build_graph=build_graph,
    make_input=make_input,
    recursion_limit=lambda settings: settings.flows.lesson.recursion_limit,
    human_in_loop=True,
    title="Lesson generation",
    decisions={"lesson_review": LessonDecision},
)
"""The registered spec (core/flows/registry.py collects every flow's SPEC)."""
