"""The extraction graph (spec 002).

START -> load_source -> extract_batch x batches (Send) -> merge_candidates
  -> [pass] detect_duplicates (merged calls) | detect_duplicate x candidates (Send) -> aggregate
     -> relation_queries x new (Send) -> search_pool -> relate x new (Send) -> collect_relations
        (a graph no larger than a pool: straight to search_pool, which pools all of it)
  -> critique_checks -> critique -> critique_judge -> critique_gate -> refine -> [pass]
                                                                   \\-> review (interrupt)
  review: approve -> commit_store -> write_vault -> mark_source -> END
          feedback -> incorporate -> [pass] -> review  (no rounds left: review again)
          drop -> review;  abort -> aborted -> END
[pass] is 1.1b-1.1e for the concepts not checked yet: those of 1.1a, then those a refinement
or the feedback added (none: straight on). A pass after the feedback ends at the review.
A processed source or one without quotes goes from load_source to finish -> END.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.evaluation import add_evaluation
from core.flows.extraction import commit, critique, duplicates, nodes, relate, review
from core.flows.extraction.state import ExtractionDecision, ExtractionInput, ExtractionState
from core.runtime import FlowSpec

FLOW_NAME = "extraction"
NODES: dict[str, Callable[..., object]] = {
    "load_source": nodes.load_source,
    "extract_batch": nodes.extract_batch,
    "merge_candidates": nodes.merge_candidates,
    "detect_duplicate": nodes.detect_duplicate,
    "detect_duplicates": duplicates.detect_duplicates,
    "aggregate": nodes.aggregate,
    "relation_queries": relate.relation_queries,
    "search_pool": relate.search_pool,
    "relate": relate.relate,
    "collect_relations": relate.collect_relations,
    "critique_checks": critique.critique_checks,
    "critique_gate": critique.critique_gate,
    "refine": critique.refine,
    "review": review.review,
    "incorporate": review.incorporate,
    "aborted": review.aborted,
    "finish": review.finish,
    "commit_store": commit.commit_store,
    "write_vault": commit.write_vault,
    "mark_source": commit.mark_source,
}


Graph = StateGraph[ExtractionState, FlowContext, ExtractionState, ExtractionState]


def build_graph() -> Graph:
    """The uncompiled extraction graph (compile it with a checkpointer)."""
    graph = StateGraph(ExtractionState, context_schema=FlowContext)
    for name, node in NODES.items():
        graph.add_node(name, node)
    entry = add_evaluation(
        graph,
        "critique",
        critique.critique_options(),
        on_continue="critique_gate",
        on_revise="critique_gate",
        on_error="critique_gate",
    )
    _add_pass(graph)
    _add_review(graph, entry)
    return graph


def _add_pass(graph: Graph) -> None:
    """Load, candidates (1.1a), then a pass of duplicates and relations (1.1b-1.1e)."""
    graph.add_edge(START, "load_source")
    graph.add_conditional_edges("load_source", nodes.route_after_load, ["extract_batch", "finish"])
    graph.add_edge("extract_batch", "merge_candidates")
    graph.add_conditional_edges(
        "merge_candidates",
        nodes.route_to_duplicates,
        ["detect_duplicate", "detect_duplicates", "aggregate"],
    )
    graph.add_edge("detect_duplicate", "aggregate")
    graph.add_edge("detect_duplicates", "aggregate")
    graph.add_conditional_edges(
        "aggregate",
        relate.route_after_aggregate,
        ["relation_queries", "search_pool", "relate", "collect_relations"],
    )
    graph.add_edge("relation_queries", "search_pool")
    graph.add_conditional_edges(
        "search_pool", relate.route_to_relate, ["relate", "collect_relations"]
    )
    graph.add_edge("relate", "collect_relations")
    graph.add_conditional_edges(
        "collect_relations", relate.route_after_relations, ["critique_checks", "review"]
    )


def _add_review(graph: Graph, judge: str) -> None:
    """Self-critique and refinement (1.2-1.3), the human review (2.x), the commit (3.x)."""
    graph.add_edge("critique_checks", judge)
    graph.add_conditional_edges(
        "critique_gate", critique.route_after_critique, ["refine", "review"]
    )
    new_concepts = ["detect_duplicate", "detect_duplicates", "critique_checks", "review"]
    graph.add_conditional_edges("refine", nodes.route_new_concepts, new_concepts)
    graph.add_conditional_edges(
        "review", review.route_after_review, ["commit_store", "incorporate", "review", "aborted"]
    )
    graph.add_conditional_edges("incorporate", nodes.route_new_concepts, new_concepts)
    graph.add_edge("commit_store", "write_vault")
    graph.add_edge("write_vault", "mark_source")
    for last in ("mark_source", "aborted", "finish"):
        graph.add_edge(last, END)


def make_input(data: Mapping[str, object]) -> dict[str, object]:
    """Validate a run's input (`{"source": rel_path}`, as the watcher queues it)."""
    return ExtractionInput.model_validate(data).model_dump()


SPEC = FlowSpec(
    name=FLOW_NAME,
    build_graph=build_graph,
    make_input=make_input,
    recursion_limit=lambda settings: settings.flows.extraction.recursion_limit,
    human_in_loop=True,
    title="Concept extraction",
    max_concurrency=lambda settings: settings.flows.extraction.concurrency,
    decisions={"extraction_review": ExtractionDecision},
)
"""The registered spec (core/flows/registry.py collects every flow's SPEC)."""
