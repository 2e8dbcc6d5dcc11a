"""Step 1.1 up to the proposal: load the source, candidates (1.1a), duplicates (1.1b).

Relations (1.1c-1.1e) are in `relate`, critique and review in `review`, commit in `commit`.
Parallel calls fan out with `Send`; the runtime's `max_concurrency` (from
`flows.extraction.concurrency`) bounds how many run at once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Send

from core.context import FlowContext
from core.domain import new_concept_id
from core.flows.extraction.batching import clip_quote, plan_batches
from core.flows.extraction.names import KnownName, known_names, same_name, similar_names
from core.flows.extraction.prompts import (
    CONCEPT_TOKENS,
    CandidateAnswer,
    CandidatesAnswer,
    DuplicateAnswer,
    candidates_messages,
    candidates_schema,
    concept_card,
    duplicate_messages,
    duplicate_schema,
    fitting,
)
from core.flows.extraction.proposal import (
    ExistingLink,
    NewConcept,
    Proposal,
    ProposedRelation,
    dedupe_relations,
    merge_links,
)
from core.flows.extraction.records import (
    Candidate,
    ConceptRow,
    Detection,
    ExistingMatch,
    KnownConcept,
    SkippedRecord,
    SourceMeta,
)
from core.flows.extraction.sanity import rejection, says_something
from core.flows.extraction.state import BatchTask, DuplicateTask, ExtractionState
from core.flows.extraction.text import clip_words, normalize_title
from core.model_failures import raise_unless_fallback, skipped_entry
from core.settings.flows import ExtractionSettings
from core.sources import read_source
from local_llm import LLMError
from vault.embedding import Embedder
from vault.search import Hit, search


def report(step: str, message: str, **counts: object) -> None:
    """Progress on the custom stream (`{"node", "step", "message", ...counts}`)."""
    with contextlib.suppress(RuntimeError, KeyError, LookupError):
        get_stream_writer()(
            {"node": f"extraction {step}", "step": step, "message": message, **counts}
        )


def options(runtime: Runtime[FlowContext]) -> ExtractionSettings:
    return runtime.context.settings.flows.extraction


async def find_concepts(
    runtime: Runtime[FlowContext], query: str, k: int, step: str
) -> tuple[list[Hit], SkippedRecord | None]:
    """Hybrid search (full-text when no embedding model) over the indexed concepts, and what a
    fallback replaced. The search falls back to full text when the embedding call fails; that
    is a model failure like any other (`core.model_failures`): the embedding model did not
    answer -> raised, the run fails at `step`; a query it cannot take -> full text stands in,
    said as skipped (it finds no paraphrase that shares no word)."""
    vault = runtime.context.vault
    index = getattr(vault, "index", None)
    embed: Embedder | None = getattr(index, "embed", None)
    model = getattr(vault, "embed_model", "") or getattr(index, "embed_model", "")
    failures: list[Exception] = []

    async def embed_query(texts: list[str]) -> list[list[float]]:
        assert embed is not None  # only passed to the search with an embedder
        try:
            return await embed(texts)
        except Exception as exc:
            failures.append(exc)
            raise

    found = await search(
        runtime.context.store,
        query,
        k=k,
        model=model,
        embed=embed_query if embed is not None else None,
    )
    if not failures:
        return found.hits, None
    raise_unless_fallback(failures[0])
    skipped = skipped_entry(
        step, f"embedding search for {clip_words(query, 8)!r}", failures[0], "full-text search only"
    )
    return found.hits, skipped


def known_entry(hit: Hit) -> KnownConcept:
    return {"title": hit.title, "path": hit.path, "short_summary": hit.short_summary}


# -- load -------------------------------------------------------------------------------------


async def load_source(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Read the source; a processed source (unless extracted again on purpose) or one without
    quotes ends the run at once."""
    path = state["source"]
    vault = runtime.context.require_vault()
    source, quotes = read_source(vault.root, path, vault.layout.max_note_bytes)
    base: ExtractionState = {"source_title": source.title, "critique_round": 0, "review_round": 0}
    if source.processed_date is not None and not state.get("again"):
        report("load", f"{path} was processed on {source.processed_date:%Y-%m-%d}; skipped")
        return {
            **base,
            "outcome": "skipped",
            "messages": [f"{path} is already processed; nothing to do."],
        }
    if not quotes:
        report("load", f"{path} has no quotes")
        return {
            **base,
            "outcome": "no_quotes",
            "quotes": [],
            "messages": [f"{path} has no quotes yet; it is extracted once quotes are added."],
        }
    items = [{"id": q.id, "text": q.text} for q in quotes]
    meta: SourceMeta = {"author": source.author, "category": source.category}
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
    runtime: Runtime[FlowContext], title: str, meta: SourceMeta, quotes: list[dict[str, str]]
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


def route_after_load(state: ExtractionState) -> list[Send] | str:
    """Ended (skipped, no quotes) -> finish; else one 1.1a call per batch."""
    if state.get("outcome"):
        return "finish"
    by_id = {q["id"]: q for q in state["quotes"]}
    batches = state["batches"]
    return [
        Send(
            "extract_batch",
            {
                "source_title": state.get("source_title", ""),
                "source_meta": state.get("source_meta", {}),
                "quotes": [by_id[i] for i in batch],
                "batch": n,
                "total": len(batches),
            },
        )
        for n, batch in enumerate(batches, 1)
    ]


# -- 1.1a -------------------------------------------------------------------------------------


async def extract_batch(state: BatchTask, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Call 1.1a on one batch: candidate concepts with the ids of the quotes that formed them.

    Code rejects what a small model gets visibly wrong (`sanity.rejection`): a candidate that
    restates the prompt's illustrations or shares no word with the quotes it cites."""
    quotes = [clip_quote(q) for q in state["quotes"]]
    ids = [q["id"] for q in quotes]
    language = options(runtime).language
    messages = candidates_messages(state["source_title"], state["source_meta"], quotes, language)
    answer = await runtime.context.llm.structured(
        messages,
        CandidatesAnswer,
        role="default",
        json_schema=candidates_schema(ids, max_tokens(runtime)),
    )
    texts = {q["id"]: q["text"] for q in state["quotes"]}
    found, rejected = [], []
    for c in answer.concepts:
        cited = [q for q in dict.fromkeys(c.quote_ids) if q in texts]
        problem = rejection(c, [texts[q] for q in cited], language, state["source_title"])
        if problem:
            rejected.append(f"candidate {c.title!r} rejected: {problem}")
        elif c.title.strip() and cited:
            found.append(_candidate(c, cited, state["batch"]))
    report(
        "1.1a",
        f"batch {state['batch']}/{state['total']}: {len(found)} candidate(s)",
        done=state["batch"],
        total=state["total"],
        candidates=len(found),
    )
    notes = [answer.notes.strip()] if says_something(answer.notes) else []
    return {"candidates": found, "extraction_notes": notes, "warnings": rejected}


def _candidate(answer: CandidateAnswer, quote_ids: list[str], batch: int) -> Candidate:
    return {
        "title": answer.title,
        "quote_ids": quote_ids,
        "short_summary": answer.short_summary,
        "summary": answer.summary,
        "concept": answer.concept,
        "analysis": answer.analysis,
        "rationale": answer.rationale,
        "batch": batch,
    }


def merge_candidates(state: ExtractionState) -> ExtractionState:
    """Candidates of every batch, merged when their titles normalize alike (quotes united);
    each gets the UUID its concept will have (`key`)."""
    merged: dict[str, Candidate] = {}
    for candidate in sorted(state.get("candidates", []), key=lambda c: c.get("batch", 0)):
        key = normalize_title(candidate["title"])
        if key in merged:
            quotes = [*merged[key]["quote_ids"], *candidate["quote_ids"]]
            merged[key]["quote_ids"] = list(dict.fromkeys(quotes))
        else:
            merged[key] = {**candidate, "key": new_concept_id()}
    report("1.1a", f"{len(merged)} candidate concept(s) after merging", candidates=len(merged))
    values = list(merged.values())
    return {"merged": values, "pending": values, "return_to": "critique_checks"}


def duplicate_checks(pending: list[Candidate], runtime: Runtime[FlowContext]) -> list[Send] | str:
    """The pending candidates' 1.1b: merged into as few calls as fit (`detect_duplicates`),
    or one call per candidate (`detect_duplicate`, the specification's design)."""
    if options(runtime).duplicate_checks == "merged":
        return "detect_duplicates"
    return [Send("detect_duplicate", {"candidate": c, "total": len(pending)}) for c in pending]


def route_to_duplicates(state: ExtractionState, runtime: Runtime[FlowContext]) -> list[Send] | str:
    """Duplicate detection of the pending candidates, or straight on when there is none."""
    pending = state.get("pending", [])
    if not pending:
        return "aggregate"
    return duplicate_checks(pending, runtime)


def as_candidate(concept: NewConcept) -> Candidate:
    """A concept of the proposal as a 1.1b candidate (its UUID is the key)."""
    return {
        "key": concept.id,
        "title": concept.title,
        "short_summary": concept.short_summary,
        "summary": concept.summary,
        "concept": concept.concept,
        "analysis": concept.analysis,
        "quote_ids": concept.quote_ids,
        "rationale": concept.rationale,
    }


def route_new_concepts(state: ExtractionState, runtime: Runtime[FlowContext]) -> list[Send] | str:
    """After a refinement or feedback: the concepts it added go through 1.1b-1.1e like every
    other candidate; without any, straight to where the pass ends (`return_to`)."""
    pending = state.get("pending", [])
    if not pending:
        return state.get("return_to", "critique_checks")
    return duplicate_checks(pending, runtime)


def unchecked(state: ExtractionState, proposal: Proposal) -> list[Candidate]:
    """The proposal's concepts that never went through duplicate detection, as candidates."""
    done = set(state.get("checked", []))
    return [as_candidate(c) for c in proposal.concepts if c.id not in done]


# -- 1.1b -------------------------------------------------------------------------------------


def concept_rows(runtime: Runtime[FlowContext]) -> list[ConceptRow]:
    rows = runtime.context.store.query(
        "SELECT entity_id, title, aliases_json, path, short_summary FROM concepts ORDER BY id"
    )
    return [
        {
            "entity_id": row["entity_id"],
            "title": row["title"],
            "aliases_json": row["aliases_json"],
            "path": row["path"],
            "short_summary": row["short_summary"],
        }
        for row in rows
    ]


def detection(
    candidate: Candidate,
    existing: ConceptRow | ExistingMatch | None,
    confidence: float,
    reasoning: str,
    by: str,
) -> Detection:
    return {
        "candidate": candidate["key"],
        "duplicate_of": existing["entity_id"] if existing else None,
        "existing_title": existing["title"] if existing else "",
        "confidence": confidence,
        "reasoning": reasoning,
        "decided_by": by,
    }


def _hit(row: ConceptRow) -> Hit:
    return Hit(
        entity_id=row["entity_id"],
        title=row["title"],
        path=row["path"],
        short_summary=row["short_summary"] or "",
        summary="",
        aliases=[],
        score=1.0,
    )


async def duplicate_candidates(
    runtime: Runtime[FlowContext], candidate: Candidate, names: list[KnownName]
) -> tuple[list[Hit], SkippedRecord | None]:
    """Existing concepts close by name (acronym, fuzzy ratio) first, then search hits (and
    what a fallback replaced in the search)."""
    opts = options(runtime)
    close = similar_names(candidate["title"], names, opts.name_similarity, opts.top_k)
    query = f"{candidate['title']} {candidate.get('short_summary', '')}"
    found, skipped = await find_concepts(runtime, query, opts.top_k, "1.1b")
    hits = [_hit(row) for row in close] + found
    unique = {h.entity_id: h for h in reversed(hits)}  # the first occurrence wins
    return sorted(unique.values(), key=hits.index)[: opts.top_k], skipped


async def detect_duplicate(state: DuplicateTask, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Call 1.1b for one candidate: the same name decides; else name matches and search find
    existing concepts for the model to judge."""
    candidate, total = state["candidate"], state.get("total", 1)
    names = known_names(concept_rows(runtime))
    match = same_name(candidate["title"], names)
    if match is not None:
        row = match.row
        found = detection(candidate, row, 1.0, f"same name as {match.name!r}", "match")
        report("1.1b", f"{candidate['title']!r}: duplicate of {row['title']!r} (name)", total=total)
        return {"detections": [found], "known": {row["entity_id"]: known_row(row)}}
    hits, searched = await duplicate_candidates(runtime, candidate, names)
    not_done = [searched] if searched else []
    if not hits:
        report("1.1b", f"{candidate['title']!r}: novel (nothing similar)", total=total)
        novel = detection(candidate, None, 1.0, "no similar existing concept", "search")
        return {"detections": [novel], "skipped": not_done}
    found, skipped = await ask_duplicate(runtime, candidate, hits)
    verdict = f"duplicate of {found['existing_title']!r}" if found["duplicate_of"] else "novel"
    report("1.1b", f"{candidate['title']!r}: {verdict}", total=total)
    return {
        "detections": [found],
        "known": {h.entity_id: known_entry(h) for h in hits},
        "skipped": not_done + ([skipped] if skipped else []),
    }


def known_row(row: ConceptRow) -> KnownConcept:
    return {"title": row["title"], "path": row["path"], "short_summary": row["short_summary"]}


async def ask_duplicate(
    runtime: Runtime[FlowContext], candidate: Candidate, hits: list[Hit]
) -> tuple[Detection, SkippedRecord | None]:
    """The model's verdict; an answer invalid after re-asks keeps the candidate new (said so)."""
    labels = {f"e{i}": hit for i, hit in enumerate(hits, 1)}
    listing = [(label, concept_card(h.title, h.short_summary)) for label, h in labels.items()]
    try:
        answer = await runtime.context.llm.structured(
            duplicate_messages(candidate, listing),
            DuplicateAnswer,
            role="default",
            json_schema=duplicate_schema(list(labels)),
        )
    except LLMError as exc:
        raise_unless_fallback(exc)
        skipped = skipped_entry(
            "1.1b",
            f"duplicate detection of {candidate['title']!r}",
            exc,
            f"kept as a new concept without comparing it with {len(hits)} similar one(s)",
        )
        return detection(candidate, None, 0.0, skipped["why"], "error"), skipped
    hit = labels.get(answer.match)
    existing: ExistingMatch | None = (
        {"entity_id": hit.entity_id, "title": hit.title} if hit else None
    )
    return detection(candidate, existing, answer.confidence, answer.reasoning, "model"), None


# -- aggregate --------------------------------------------------------------------------------


def _new_concept(candidate: Candidate) -> NewConcept:
    summary = candidate.get("summary") or candidate.get("concept", "")
    return NewConcept(
        id=candidate["key"],
        title=candidate["title"].strip(),
        short_summary=candidate.get("short_summary", ""),
        summary=clip_words(summary, 100),
        concept=candidate.get("concept", ""),
        analysis=candidate.get("analysis", ""),
        quote_ids=candidate["quote_ids"],
        rationale=candidate.get("rationale", ""),
    )


def _link(candidate: Candidate, found: Detection, existing_id: str) -> ExistingLink:
    return ExistingLink(
        concept_id=existing_id,
        title=found["existing_title"],
        quote_ids=candidate["quote_ids"],
        candidate=candidate["title"],
        confidence=found["confidence"],
        reasoning=found["reasoning"],
        decided_by=found["decided_by"],
    )


def _retarget(
    relations: list[ProposedRelation], moved: Mapping[str, str]
) -> list[ProposedRelation]:
    """Relations of a concept found to be a duplicate now point at the existing concept."""
    return [
        r.model_copy(
            update={
                "source_id": moved.get(r.source_id, r.source_id),
                "target_id": moved.get(r.target_id, r.target_id),
            }
        )
        for r in relations
    ]


def aggregate(state: ExtractionState) -> ExtractionState:
    """The pending candidates into the proposal: novel ones are (or stay) new concepts,
    duplicates hand their quotes (and relations) to the existing concept."""
    proposal = Proposal.model_validate(state.get("proposal") or {})
    pending = state.get("pending", [])
    keys = {c["key"] for c in pending}
    by_key = {d["candidate"]: d for d in state.get("detections", []) if d["candidate"] in keys}
    concepts = {c.id: c for c in proposal.concepts}
    links, moved, novel = list(proposal.existing), {}, []
    for candidate in pending:
        existing_id = found["duplicate_of"] if (found := by_key.get(candidate["key"])) else None
        if found and existing_id:
            links.append(_link(candidate, found, existing_id))
            moved[candidate["key"]] = existing_id
            concepts.pop(candidate["key"], None)
        else:
            concepts.setdefault(candidate["key"], _new_concept(candidate))
            novel.append(candidate["key"])
    known = set(state.get("known", {})) | set(moved.values())
    relations = dedupe_relations(_retarget(proposal.relations, moved), set(concepts), known)
    first_pass = not state.get("checked")
    notes = [*state.get("extraction_notes", []), *proposal.notes] if first_pass else proposal.notes
    updated = Proposal(
        concepts=list(concepts.values()),
        existing=merge_links(links),
        relations=relations,
        notes=list(notes),
    )
    report(
        "1.1b",
        f"{len(novel)} new concept(s), {len(moved)} duplicate(s)",
        new=len(novel),
        duplicates=len(moved),
    )
    return {
        "proposal": updated.model_dump(mode="json"),
        "pending": [],
        "checked": [*state.get("checked", []), *keys],
        "relating": novel,
    }
