"""Step 1.1 up to the proposal: load the source, candidates (1.1a), duplicates (1.1b).

Relations (1.1c-1.1e) are in `relate`, critique and review in `review`, commit in `commit`.
Parallel calls fan out with `Send`; the runtime's `max_concurrency` (from
`flows.extraction.concurrency`) bounds how many run at once.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Send

from core.context import FlowContext
from core.flows.extraction.batching import clip_quote, plan_batches
from core.flows.extraction.prompts import (
    CONCEPT_TOKENS,
    CandidatesAnswer,
    DuplicateAnswer,
    candidates_messages,
    candidates_schema,
    concept_card,
    duplicate_messages,
    duplicate_schema,
    fitting,
)
from core.flows.extraction.proposal import ExistingLink, NewConcept, Proposal, merge_links
from core.flows.extraction.text import clip_words, normalize_title
from core.problems import explain
from core.sources import read_source
from local_llm import LLMError
from vault.search import Hit, search

State = Mapping[str, Any]


def report(step: str, message: str, **counts: Any) -> None:
    """Progress on the custom stream (`{"node", "step", "message", ...counts}`)."""
    with contextlib.suppress(RuntimeError, KeyError, LookupError):
        get_stream_writer()(
            {"node": f"extraction {step}", "step": step, "message": message, **counts}
        )


def options(runtime: Runtime[FlowContext]) -> Any:
    return runtime.context.settings.flows.extraction


async def find_concepts(runtime: Runtime[FlowContext], query: str, k: int) -> list[Hit]:
    """Hybrid search (full-text when no embedding model) over the indexed concepts."""
    vault = runtime.context.vault
    index = getattr(vault, "index", None)
    embed = getattr(index, "embed", None)
    model = getattr(vault, "embed_model", "") or getattr(index, "embed_model", "")
    result = await search(runtime.context.store, query, k=k, embed=embed, model=model)
    return result.hits


def known_entry(hit: Hit) -> dict[str, Any]:
    return {"title": hit.title, "path": hit.path, "short_summary": hit.short_summary}


# -- load -------------------------------------------------------------------------------------


async def load_source(state: State, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    """Read the source; a processed source or one without quotes ends the run at once."""
    path = state["source"]
    vault = runtime.context.vault
    if vault is None:
        raise ValueError("no vault is configured: set vault.path")
    source, quotes = read_source(vault.root, path, vault.layout.max_note_bytes)
    base = {"source_title": source.title, "critique_round": 0, "review_round": 0}
    if source.processed_date is not None:
        report("load", f"{path} was processed on {source.processed_date:%Y-%m-%d}; skipped")
        return {
            **base,
            "outcome": "skipped",
            "messages": [f"{path} is already processed; nothing to do."],
        }
    if not quotes:
        report("load", f"{path} has no quotes")
        return {**base, "outcome": "no_quotes", "quotes": [],
                "messages": [f"{path} has no quotes yet; it is extracted once quotes are added."]}  # fmt: skip
    items = [{"id": q.id, "text": q.text} for q in quotes]
    meta = {"author": source.author, "category": source.category}
    batches = batch_quotes(runtime, source.title, meta, items)
    report(
        "load",
        f"{len(items)} quotes in {len(batches)} batch(es)",
        quotes=len(items),
        batches=len(batches),
    )
    return {
        **base,
        "quotes": items,
        "source_meta": meta,
        "batches": batches,
        "proposal": Proposal().model_dump(),
    }


QUOTES_PER_CONCEPT = 3
"""Quotes per concept slot of an answer: a batch holds at most this many quotes per concept
the completion can hold, so its ideas are not cut short by the output budget."""


def max_tokens(runtime: Runtime[FlowContext], role: str = "default") -> int:
    return runtime.context.llm.config(role).max_tokens


def batch_quotes(
    runtime: Runtime[FlowContext], title: str, meta: dict, quotes: list[dict]
) -> list[list[str]]:
    """Batches that fit the prompt budget AND whose concepts fit the completion budget."""
    llm, language = runtime.context.llm, options(runtime).language
    slots = fitting(max_tokens(runtime), CONCEPT_TOKENS)
    return plan_batches(
        quotes,
        lambda batch: candidates_messages(title, meta, batch, language),
        lambda messages: llm.count_tokens(messages, role="default"),
        llm.budget("default"),
        min(options(runtime).max_quotes_per_batch, QUOTES_PER_CONCEPT * slots),
    )


def route_after_load(state: State) -> list[Send] | str:
    """Ended (skipped, no quotes) -> finish; else one 1.1a call per batch."""
    if state.get("outcome"):
        return "finish"
    by_id = {q["id"]: q for q in state["quotes"]}
    batches = state["batches"]
    return [
        Send("extract_batch", {
            "source_title": state.get("source_title", ""), "source_meta": state.get("source_meta", {}),
            "quotes": [by_id[i] for i in batch], "batch": n, "total": len(batches),
        })
        for n, batch in enumerate(batches, 1)
    ]  # fmt: skip


# -- 1.1a -------------------------------------------------------------------------------------


async def extract_batch(state: State, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    """Call 1.1a on one batch: candidate concepts with the ids of the quotes that formed them."""
    quotes = [clip_quote(q) for q in state["quotes"]]
    ids = [q["id"] for q in quotes]
    language = options(runtime).language
    messages = candidates_messages(state["source_title"], state["source_meta"], quotes, language)
    answer = await runtime.context.llm.structured(
        messages, CandidatesAnswer, role="default",
        json_schema=candidates_schema(ids, max_tokens(runtime)),
    )  # fmt: skip
    found = [
        {
            **c.model_dump(),
            "quote_ids": [q for q in dict.fromkeys(c.quote_ids) if q in ids],
            "batch": state["batch"],
        }
        for c in answer.concepts
        if c.title.strip()
    ]
    report("1.1a", f"batch {state['batch']}/{state['total']}: {len(found)} candidate(s)",
           done=state["batch"], total=state["total"], candidates=len(found))  # fmt: skip
    return {"candidates": [c for c in found if c["quote_ids"]]}


def merge_candidates(state: State) -> dict[str, Any]:
    """Candidates of every batch, merged when their titles normalize alike (quotes united)."""
    merged: dict[str, dict[str, Any]] = {}
    for candidate in sorted(state.get("candidates", []), key=lambda c: c.get("batch", 0)):
        key = normalize_title(candidate["title"])
        if key in merged:
            quotes = [*merged[key]["quote_ids"], *candidate["quote_ids"]]
            merged[key]["quote_ids"] = list(dict.fromkeys(quotes))
        else:
            merged[key] = {**candidate, "key": f"c{len(merged) + 1}"}
    report("1.1a", f"{len(merged)} candidate concept(s) after merging", candidates=len(merged))
    return {"merged": list(merged.values())}


def route_to_duplicates(state: State) -> list[Send] | str:
    """One duplicate detection per candidate, or straight on when there is none."""
    merged = state.get("merged", [])
    if not merged:
        return "aggregate"
    return [Send("detect_duplicate", {"candidate": c, "total": len(merged)}) for c in merged]


# -- 1.1b -------------------------------------------------------------------------------------


def exact_match(runtime: Runtime[FlowContext], title: str) -> dict[str, Any] | None:
    """The existing concept whose title or an alias normalizes like `title` (no model)."""
    wanted = normalize_title(title)
    if not wanted:
        return None
    rows = runtime.context.store.query(
        "SELECT entity_id, title, aliases_json, path, short_summary FROM concepts ORDER BY id"
    )
    for row in rows:
        names = [row["title"], *json.loads(row["aliases_json"] or "[]")]
        if any(normalize_title(str(name)) == wanted for name in names):
            return dict(row)
    return None


def detection(
    candidate: State, existing: dict | None, confidence: float, reasoning: str, by: str
) -> dict:
    return {
        "candidate": candidate["key"],
        "duplicate_of": existing["entity_id"] if existing else None,
        "existing_title": existing["title"] if existing else "",
        "confidence": confidence,
        "reasoning": reasoning,
        "decided_by": by,
    }


async def detect_duplicate(state: State, runtime: Runtime[FlowContext]) -> dict[str, Any]:
    """Call 1.1b for one candidate: exact match decides; else search, then the model."""
    candidate, total = state["candidate"], state.get("total", 1)
    match = exact_match(runtime, candidate["title"])
    if match is not None:
        found = detection(candidate, match, 1.0, f"same title as {match['title']!r}", "match")
        report(
            "1.1b", f"{candidate['title']!r}: duplicate of {match['title']!r} (title)", total=total
        )
        return {"detections": [found], "known": {match["entity_id"]: _known_row(match)}}
    query = f"{candidate['title']} {candidate.get('short_summary', '')}"
    hits = await find_concepts(runtime, query, options(runtime).top_k)
    if not hits:
        report("1.1b", f"{candidate['title']!r}: novel (nothing similar)", total=total)
        return {
            "detections": [detection(candidate, None, 1.0, "no similar existing concept", "search")]
        }
    found, warning = await ask_duplicate(runtime, candidate, hits)
    verdict = f"duplicate of {found['existing_title']!r}" if found["duplicate_of"] else "novel"
    report("1.1b", f"{candidate['title']!r}: {verdict}", total=total)
    update: dict[str, Any] = {
        "detections": [found],
        "known": {h.entity_id: known_entry(h) for h in hits},
    }
    return update | ({"warnings": [warning]} if warning else {})


def _known_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"title": row["title"], "path": row["path"], "short_summary": row["short_summary"]}


async def ask_duplicate(
    runtime: Runtime[FlowContext], candidate: State, hits: list[Hit]
) -> tuple[dict, str]:
    labels = {f"e{i}": hit for i, hit in enumerate(hits, 1)}
    listing = [(label, concept_card(h.title, h.short_summary)) for label, h in labels.items()]
    try:
        answer = await runtime.context.llm.structured(
            duplicate_messages(candidate, listing), DuplicateAnswer, role="default",
            json_schema=duplicate_schema(list(labels)),
        )  # fmt: skip
    except LLMError as exc:
        why = explain(exc).summary
        note = f"duplicate detection failed for {candidate['title']!r} ({why}); kept as new"
        return detection(candidate, None, 0.0, note, "error"), note
    hit = labels.get(answer.match)
    existing = {"entity_id": hit.entity_id, "title": hit.title} if hit else None
    return detection(candidate, existing, answer.confidence, answer.reasoning, "model"), ""


# -- aggregate --------------------------------------------------------------------------------


def aggregate(state: State) -> dict[str, Any]:
    """Novel candidates become new concepts; duplicates hand their quotes to the existing one."""
    by_key = {d["candidate"]: d for d in state.get("detections", [])}
    concepts, links = [], []
    for candidate in state.get("merged", []):
        found = by_key.get(candidate["key"], {})
        if found.get("duplicate_of"):
            links.append(ExistingLink(
                concept_id=found["duplicate_of"], title=found["existing_title"],
                quote_ids=candidate["quote_ids"], candidate=candidate["title"],
                confidence=found["confidence"], reasoning=found["reasoning"],
                decided_by=found["decided_by"],
            ))  # fmt: skip
        else:
            concepts.append(NewConcept(
                title=candidate["title"].strip(), short_summary=candidate.get("short_summary", ""),
                summary=clip_words(candidate.get("concept", ""), 100),
                concept=candidate.get("concept", ""), analysis=candidate.get("analysis", ""),
                quote_ids=candidate["quote_ids"], rationale=candidate.get("rationale", ""),
            ))  # fmt: skip
    proposal = Proposal(concepts=concepts, existing=merge_links(links))
    report("1.1b", f"{len(concepts)} new concept(s), {len(links)} duplicate(s)",
           new=len(concepts), duplicates=len(links))  # fmt: skip
    return {"proposal": proposal.model_dump()}
