"""The tutor graph (spec 004). One session = one thread; each turn is one stretch of it.

    START -> ROUTER -+-> planner -> executor -> END          (new session, or a replan)
                     +-> evaluator -+-> replan   -> planner -> executor -> END
                     |              +-> continue -> executor -> END
                     |              +-> end      -> finish -> END
                     +-> executor -> END                    (edge case: the tutor spoke last)
                     +-> END                                (the session has ended)

The ROUTER is code (`plan.route_entry`). A new turn starts when the learner's message is sent
as input on the finished thread (`core.runtime.Runtime.send`): the conversation reducer
appends it and the graph runs again from START.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.flows.tutor import nodes
from core.flows.tutor.plan import route_entry
from core.flows.tutor.state import SimplifiedState, TutorInput
from core.runtime import FlowSpec

FLOW_NAME = "tutor"


def on_loop(
    route: Callable[[SimplifiedState], str],
) -> Callable[[SimplifiedState], Awaitable[str]]:
    """`route` as a coroutine function, so that it runs on the event loop.

    Streamed asynchronously, LangGraph runs a plain routing function in a worker thread: a
    thread hop (and the loop's wake-up) to read two fields of the state, twice on every turn's
    way to its model calls."""

    async def routed(state: SimplifiedState) -> str:
        return route(state)

    routed.__name__ = route.__name__
    return routed


def build_graph() -> StateGraph[SimplifiedState, FlowContext, SimplifiedState, SimplifiedState]:
    """The uncompiled tutor graph (compile it with a checkpointer)."""
    graph = StateGraph(SimplifiedState, context_schema=FlowContext)
    graph.add_node("planner", nodes.planner)
    graph.add_node("executor", nodes.executor)
    graph.add_node("evaluator", nodes.evaluator)
    graph.add_node("finish", nodes.finish)
    graph.add_conditional_edges(
        START,
        on_loop(route_entry),
        {"planner": "planner", "evaluator": "evaluator", "executor": "executor", "closed": END},
    )
    graph.add_edge("planner", "executor")
    graph.add_edge("executor", END)
    graph.add_conditional_edges(
        "evaluator",
        on_loop(nodes.route_after_evaluation),
        {"replan": "planner", "continue": "executor", "end": "finish"},
    )
    graph.add_edge("finish", END)
    return graph


def make_input(data: Mapping[str, object]) -> dict[str, object]:
    """Validate a session's input into the graph's initial state."""
    value = TutorInput.model_validate(data).model_dump()
    return {**value, "conversation": [], "agent_logs": [], "assessment_notes": ""}


SPEC = FlowSpec(
    name=FLOW_NAME,
    build_graph=build_graph,
    make_input=make_input,
    recursion_limit=lambda settings: settings.flows.tutor.recursion_limit,
    # a turn never stops at an interrupt: checkpoints are written in the background while the
    # next node runs, and all of them before the turn's stream ends
    human_in_loop=False,
    title="Tutoring",
    note_language=False,  # talks in the learner's language (the learner profile)
)
"""The registered spec (core/flows/registry.py collects every flow's SPEC)."""
