"""Relations of the new concepts: queries (1.1c), search pool (1.1d), relations (1.1e).

Relations are only ever proposed FROM a new concept, to another new concept or to an
existing concept of its pool, so relations between existing concepts are never touched (B3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Send

from core.context import FlowContext
from core.flows.extraction.nodes import find_concepts, known_entry, max_tokens, options, report
from core.flows.extraction.prompts import (
    RelationQueries,
    RelationsAnswer,
    concept_card,
    queries_messages,
    queries_per_type,
    queries_schema,
    relations_messages,
    relations_schema,
)
from core.flows.extraction.proposal import Proposal, ProposedRelation, dedupe_relations
from core.problems import explain
from local_llm import LLMError
from vault.search import rrf

State = Mapping[str, Any]


def _card(concept: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("id", "title", "short_summary", "concept")
    return {k: concept.get(k, "") for k in keys}


def route_after_aggregate(state: State, runtime: Runtime[FlowContext]) -> list[Send] | str:
    """No new concepts -> critique; existing concepts -> 1.1c per new concept; else 1.1e."""
    concepts = state["proposal"]["concepts"]
    if not concepts:
        return "critique_checks"
    has_existing = runtime.context.store.query_one("SELECT 1 FROM concepts LIMIT 1") is not None
    if has_existing:
        total = len(concepts)
        return [Send("relation_queries", {"concept": _card(c), "total": total}) for c in concepts]
    return route_to_relate({**state, "pools": {}}) if len(concepts) > 1 else "critique_checks"


async def relation_queries(state: State, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    """Call 1.1c: search queries per relation type for one new concept."""
    concept, opts = state["concept"], options(runtime)
    n = queries_per_type(opts.queries_per_relation, max_tokens(runtime))
    try:
        answer = await runtime.context.llm.structured(
            queries_messages(concept, n, opts.language), RelationQueries, role="default",
            json_schema=queries_schema(n),
        )  # fmt: skip
        queries = {t: [q for q in qs if q.strip()] for t, qs in answer.model_dump().items()}
        warning = []
    except LLMError as exc:
        queries = {}
        warning = [
            f"relation queries failed for {concept['title']!r} ({explain(exc).summary}); "
            "searched by title"
        ]
    count = sum(len(q) for q in queries.values())
    report(
        "1.1c",
        f"{concept['title']!r}: {count} search queries",
        queries=count,
        total=state.get("total", 1),
    )
    return {"query_sets": [{"concept_id": concept["id"], "queries": queries}], "warnings": warning}


async def search_pool(state: State, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    """Step 1.1d (no model): run every query, pool the existing concepts found per concept."""
    size = options(runtime).pool_size
    proposal = Proposal.model_validate(state["proposal"])
    titles = {c.id: c.title for c in proposal.concepts}
    pools: dict[str, list[str]] = {}
    known: dict[str, dict[str, Any]] = {}
    for entry in state.get("query_sets", []):
        cid = entry["concept_id"]
        queries = [titles.get(cid, "")] + [q for qs in entry["queries"].values() for q in qs]
        rankings = []
        for query in dict.fromkeys(q for q in queries if q.strip()):
            hits = await find_concepts(runtime, query, size)
            known |= {h.entity_id: known_entry(h) for h in hits}
            rankings.append([(h.entity_id, h.score) for h in hits])
        pools[cid] = [entity_id for entity_id, _ in rrf(rankings, size)]
    total = len({e for pool in pools.values() for e in pool})
    report(
        "1.1d", f"{total} existing concept(s) pooled for {len(pools)} new concept(s)", pooled=total
    )
    return {"pools": pools, "known": known}


def route_to_relate(state: State) -> list[Send] | str:
    """One 1.1e call per new concept that has something to relate to."""
    proposal = state["proposal"]
    concepts = proposal["concepts"]
    known = state.get("known", {})
    sends = []
    for concept in concepts:
        others = [
            (c["id"], concept_card(c["title"], c.get("short_summary", "")))
            for c in concepts
            if c["id"] != concept["id"]
        ]
        pool = state.get("pools", {}).get(concept["id"], [])
        others += [
            (cid, concept_card(known[cid]["title"], known[cid].get("short_summary", "")))
            for cid in pool
            if cid in known
        ]
        if others:
            sends.append(
                Send(
                    "relate", {"concept": _card(concept), "others": others, "total": len(concepts)}
                )
            )
    return sends or "collect_relations"


async def relate(state: State, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    """Call 1.1e for one new concept: relations to the others, targets bounded to them."""
    concept = state["concept"]
    labels = {}
    listing = []
    for i, (cid, card) in enumerate(state["others"], 1):
        labels[f"k{i}"] = cid
        listing.append((f"k{i}", card))
    try:
        answer = await runtime.context.llm.structured(
            relations_messages(concept, listing), RelationsAnswer, role="default",
            json_schema=relations_schema(list(labels), max_tokens(runtime)),
        )  # fmt: skip
    except LLMError as exc:
        note = f"relations failed for {concept['title']!r} ({explain(exc).summary}); none proposed"
        return {
            "relation_sets": [{"concept_id": concept["id"], "relations": []}],
            "warnings": [note],
        }
    relations = [
        ProposedRelation(
            source_id=concept["id"], type=r.type, target_id=labels[r.target],
            explanation=r.explanation, confidence=r.confidence,
        ).model_dump(mode="json")
        for r in answer.relations if r.target in labels
    ]  # fmt: skip
    report(
        "1.1e", f"{concept['title']!r}: {len(relations)} relation(s)", total=state.get("total", 1)
    )
    return {"relation_sets": [{"concept_id": concept["id"], "relations": relations}]}


def collect_relations(state: State) -> dict[str, Any]:
    """Every relation once (an edge and its inverse count as one), new-concept ends only."""
    proposal = Proposal.model_validate(state["proposal"])
    found = [
        ProposedRelation.model_validate(r)
        for s in state.get("relation_sets", [])
        for r in s["relations"]
    ]
    relations = dedupe_relations(found, proposal.new_ids(), set(state.get("known", {})))
    report("1.1e", f"{len(relations)} relation(s)", relations=len(relations))
    return {
        "proposal": proposal.model_copy(update={"relations": relations}).model_dump(mode="json")
    }
