"""Relations of the new concepts: queries (1.1c), search pool (1.1d), relations (1.1e).

Relations are only ever proposed FROM a new concept, to another new concept or to an
existing concept of its pool, so relations between existing concepts are never touched (B3).
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from core.context import FlowContext
from core.flows.extraction.nodes import (
    concept_rows,
    find_concepts,
    known_entry,
    known_row,
    max_tokens,
    options,
    report,
)
from core.flows.extraction.prompts import (
    RelationsAnswer,
    concept_card,
    queries_messages,
    queries_model,
    queries_schema,
    relations_messages,
    relations_schema,
    type_batches,
)
from core.flows.extraction.proposal import NewConcept, Proposal, ProposedRelation, dedupe_relations
from core.flows.extraction.records import ConceptCard, KnownConcept, SkippedRecord
from core.flows.extraction.state import ExtractionState, RelateTask, RelationQueryTask
from core.model_failures import raise_unless_fallback, skipped_entry
from local_llm import LLMError
from vault.search import rrf


def _card(concept: NewConcept) -> ConceptCard:
    return {
        "id": concept.id,
        "title": concept.title,
        "short_summary": concept.short_summary,
        "concept": concept.concept,
    }


def relating(state: ExtractionState) -> list[NewConcept]:
    """The novel concepts of this pass (1.1b's output) as they stand in the proposal."""
    wanted = set(state.get("relating", []))
    return [c for c in Proposal.model_validate(state["proposal"]).concepts if c.id in wanted]


def route_after_aggregate(
    state: ExtractionState, runtime: Runtime[FlowContext]
) -> list[Send] | str:
    """Existing concepts -> 1.1c per novel concept of this pass; else 1.1e among the new."""
    concepts = relating(state)
    if not concepts:
        return "collect_relations"
    existing = runtime.context.store.query_one("SELECT COUNT(*) FROM concepts")
    count = int(existing[0]) if existing is not None else 0
    if not count:
        return route_to_relate(state)
    if count <= options(runtime).pool_size:
        return "search_pool"  # the whole graph is every concept's pool: no query can add one
    total = len(concepts)
    return [Send("relation_queries", {"concept": _card(c), "total": total}) for c in concepts]


async def relation_queries(
    state: RelationQueryTask, runtime: Runtime[FlowContext]
) -> ExtractionState:
    """Call 1.1c: exactly `queries_per_relation` queries for each of the nine relation types,
    in as many calls as the completion budget needs."""
    concept, opts = state["concept"], options(runtime)
    n = opts.queries_per_relation
    queries: dict[str, list[str]] = {}
    skipped: list[SkippedRecord] = []
    for types in type_batches(n, max_tokens(runtime)):
        try:
            answer = await runtime.context.llm.structured(
                queries_messages(concept, n, opts.language, types),
                queries_model(types),
                role="default",
                json_schema=queries_schema(n, types),
            )
        except LLMError as exc:
            raise_unless_fallback(exc)
            skipped.append(
                skipped_entry(
                    "1.1c",
                    f"relation queries ({', '.join(types)}) of {concept['title']!r}",
                    exc,
                    "searched by the title for these relation types",
                )
            )
            continue
        queries |= {t: [q for q in qs if q.strip()] for t, qs in answer.model_dump().items()}
    count = sum(len(q) for q in queries.values())
    report(
        "1.1c",
        f"{concept['title']!r}: {count} search queries",
        queries=count,
        total=state.get("total", 1),
    )
    return {"query_sets": [{"concept_id": concept["id"], "queries": queries}], "skipped": skipped}


async def search_pool(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Step 1.1d (no model): run every query of this pass's concepts, pool the existing
    concepts found per concept. A graph no larger than a pool is every concept's pool whole
    (1.1c asked no queries for it)."""
    size = options(runtime).pool_size
    titles = {c.id: c.title for c in relating(state)}
    pools: dict[str, list[str]] = dict(state.get("pools") or {})
    known: dict[str, KnownConcept] = {}
    skipped: list[SkippedRecord] = []
    queried = {e["concept_id"] for e in state.get("query_sets", [])}
    if unqueried := [cid for cid in titles if cid not in queried]:
        rows = concept_rows(runtime)
        if len(rows) <= size:
            known |= {r["entity_id"]: known_row(r) for r in rows}
            pools |= dict.fromkeys(unqueried, [r["entity_id"] for r in rows])
    for entry in state.get("query_sets", []):
        cid = entry["concept_id"]
        if cid not in titles:
            continue
        queries = [titles[cid]] + [q for qs in entry["queries"].values() for q in qs]
        rankings = []
        for query in dict.fromkeys(q for q in queries if q.strip()):
            hits, fallback = await find_concepts(runtime, query, size, "1.1d")
            skipped += [fallback] if fallback and not skipped else []  # one line says it
            known |= {h.entity_id: known_entry(h) for h in hits}
            rankings.append([(h.entity_id, h.score) for h in hits])
        pools[cid] = [entity_id for entity_id, _ in rrf(rankings, size)]
    total = len({e for cid in titles for e in pools.get(cid, [])})
    report(
        "1.1d", f"{total} existing concept(s) pooled for {len(titles)} new concept(s)", pooled=total
    )
    return {"pools": pools, "known": known, "skipped": skipped}


def route_to_relate(state: ExtractionState) -> list[Send] | str:
    """One 1.1e call per novel concept of this pass that has something to relate to: every
    other new concept and its pool of existing ones."""
    concepts = Proposal.model_validate(state["proposal"]).concepts
    known = state.get("known", {})
    sends = []
    for concept in relating(state):
        pool = state.get("pools", {}).get(concept.id, [])
        others = [
            (cid, concept_card(known[cid]["title"], known[cid].get("short_summary", "")))
            for cid in pool
            if cid in known
        ]  # existing first: a graph no larger than a pool gives every new concept the same
        others += [
            (c.id, concept_card(c.title, c.short_summary)) for c in concepts if c.id != concept.id
        ]
        if others:
            card = {"concept": _card(concept), "others": others, "total": len(concepts)}
            sends.append(Send("relate", card))
    return sends or "collect_relations"


async def relate(state: RelateTask, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Call 1.1e for one new concept: relations to the others, targets bounded to them."""
    concept = state["concept"]
    labels = {}
    listing = []
    for i, (cid, card) in enumerate(state["others"], 1):
        labels[f"k{i}"] = cid
        listing.append((f"k{i}", card))
    try:
        answer = await runtime.context.llm.structured(
            relations_messages(concept, listing),
            RelationsAnswer,
            role="default",
            json_schema=relations_schema(list(labels), max_tokens(runtime)),
        )
    except LLMError as exc:
        raise_unless_fallback(exc)
        skipped = skipped_entry(
            "1.1e", f"relations of {concept['title']!r}", exc, "no relation proposed for it"
        )
        return {
            "relation_sets": [{"concept_id": concept["id"], "relations": []}],
            "skipped": [skipped],
        }
    relations = [
        ProposedRelation(
            source_id=concept["id"],
            type=r.type,
            target_id=labels[r.target],
            explanation=r.explanation,
            confidence=r.confidence,
        ).model_dump(mode="json")
        for r in answer.relations
        if r.target in labels
    ]
    report(
        "1.1e", f"{concept['title']!r}: {len(relations)} relation(s)", total=state.get("total", 1)
    )
    return {"relation_sets": [{"concept_id": concept["id"], "relations": relations}]}


def collect_relations(state: ExtractionState) -> ExtractionState:
    """This pass's relations added to the proposal's, each once (an edge and its inverse
    count as one), new-concept ends only."""
    proposal = Proposal.model_validate(state["proposal"])
    wanted = set(state.get("relating", []))
    found = [
        ProposedRelation.model_validate(r)
        for s in state.get("relation_sets", [])
        if s["concept_id"] in wanted
        for r in s["relations"]
    ]
    relations = dedupe_relations(
        [*proposal.relations, *found], proposal.new_ids(), set(state.get("known", {}))
    )
    report("1.1e", f"{len(relations)} relation(s)", relations=len(relations))
    update = {"relations": relations}
    return {"proposal": proposal.model_copy(update=update).model_dump(mode="json"), "relating": []}


def route_after_relations(state: ExtractionState) -> Literal["critique_checks", "review"]:
    """Where this pass of 1.1b-1.1e ends (the self-critique, or back to the review)."""
    return state.get("return_to") or "critique_checks"
