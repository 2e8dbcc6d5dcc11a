"""Nodes of the normalization loop: load -> generation <-> validation -> finish (spec 000).

Code decides what code can: deterministic variants, merge keys, weak filtering, the trend and
convergence. The generator sees names (the full list, or blocks of similar names when the list
does not fit the context budget); the evaluator sees the proposals with their definitions and
fails closed: a batch it could not judge is not accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Mapping
from typing import Any, Literal

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from core.context import FlowContext
from core.flows.normalization import prompts
from core.flows.normalization.accumulate import (
    Merge,
    accumulate,
    format_weak,
    make_merge,
    should_stop,
)
from core.flows.normalization.blocks import build_units, index_searcher, name_costs, pack
from core.flows.normalization.catalog import ConceptInfo, concept_names, load_concepts
from core.flows.normalization.neighbours import vector_pairs
from core.flows.normalization.state import (
    ConceptData,
    NormalizationState,
    NormalizationStreamEvent,
    Phase,
)
from core.flows.normalization.variants import deterministic_merges
from core.merges.reviews import ReviewsRepo
from core.model_failures import raise_unless_fallback, skipped_entry
from core.settings.flows import NormalizationSettings
from core.store import Store
from local_llm import LLMError

ANSWER_RESERVE = 600
"""Prompt tokens kept free beside a block's names (instructions, avoid list)."""


def emit(node: str, phase: Phase, activity: str, state: NormalizationState, **fields: Any) -> None:
    """One progress event with the fields of spec 000's NormalizationStreamEvent (which
    validates `fields`)."""
    event = NormalizationStreamEvent(
        node=node,
        phase=phase,
        agent_activity=activity,
        message=activity,
        iteration=fields.pop("iteration", state.get("iteration", 0)),
        total_merges=fields.pop("total_merges", len(state.get("all_merges", {}))),
        weak_count=fields.pop("weak_count", len(state.get("weak_merges", {}))),
        **fields,
    )
    with contextlib.suppress(RuntimeError):  # outside a graph run (a helper's unit test)
        get_stream_writer()(event.model_dump())


def concept_data(concept: ConceptInfo) -> ConceptData:
    """The concept as the state keeps it (`dataclasses.asdict`, typed)."""
    return {
        "id": concept.id,
        "title": concept.title,
        "path": concept.path,
        "aliases": list(concept.aliases),
        "short_summary": concept.short_summary,
        "summary": concept.summary,
        "links": concept.links,
        "language": concept.language,
    }


def stored_weak_merges(store: Store) -> dict[str, Merge]:
    """Every weak merge ever recorded (`ReviewsRepo.weak_merges`), by key, as merges."""
    return {
        key: {
            "key": row["key"],
            "a_id": row["a_id"],
            "b_id": row["b_id"],
            "a_name": row["a_name"],
            "b_name": row["b_name"],
            "reason": row["reason"],
            "explanation": row["explanation"],
            "origin": row["origin"],
            "run_id": row["run_id"],
        }
        for key, row in ReviewsRepo(store).weak_merges().items()
    }


def _settings(runtime: Runtime[FlowContext]) -> NormalizationSettings:
    return runtime.context.settings.flows.normalization


def _sync_index(runtime: Runtime[FlowContext]) -> None:
    vault = runtime.context.vault
    index = getattr(vault, "index", None)
    if index is not None:
        index.sync_files()


def _max_tokens(runtime: Runtime[FlowContext]) -> int:
    """The completion limit of the default role (answers are bounded to fit it)."""
    return int(runtime.context.llm.config("default").max_tokens)


def _block_budget(runtime: Runtime[FlowContext]) -> int:
    """Tokens of names one block may hold."""
    limit = runtime.context.llm.budget("default") - ANSWER_RESERVE
    return max(100, min(_settings(runtime).block_tokens, limit))


def _full_list_fits(
    runtime: Runtime[FlowContext], names: list[str], weak: Mapping[str, Merge]
) -> bool:
    messages = prompts.generator_messages(names, format_weak(weak.values()), len(weak))
    llm = runtime.context.llm
    return llm.count_tokens(messages) <= llm.budget("default")


async def load(state: NormalizationState, runtime: Runtime[FlowContext]) -> NormalizationState:
    """Read concepts and weak merges, find deterministic variants, choose full list or blocks."""
    await asyncio.to_thread(_sync_index, runtime)
    store, settings = runtime.context.store, _settings(runtime)
    concepts = load_concepts(store)
    names = concept_names(concepts)
    weak = stored_weak_merges(store)
    found = []
    if settings.deterministic:
        found = [
            make_merge(m.a_id, m.b_id, m.a_name, m.b_name, m.reason, origin="code")
            for m in deterministic_merges(names)
        ]
    merged = accumulate({}, found, weak).all_merges
    strategy = state.get("strategy") or settings.strategy
    units: list[list[str]] = []
    if strategy == "blocks" or (
        strategy == "auto" and not _full_list_fits(runtime, [n.name for n in names], weak)
    ):
        searcher = index_searcher(store)
        model = getattr(runtime.context.vault, "embed_model", "")  # '' when no embeddings
        close = await asyncio.to_thread(  # numpy over every stored vector: off the loop
            vector_pairs, store, model, settings.neighbors, settings.vector_similarity
        )
        units = build_units(
            concepts,
            names,
            searcher,
            budget=_block_budget(runtime),
            neighbors=settings.neighbors,
            close=close,
        )
    mode = f"{len(units)} groups of similar names" if units else "the full list"
    update: NormalizationState = {
        "concepts": [concept_data(c) for c in concepts],
        "units": units,
        "active_units": list(range(len(units))),
        "iteration": 0,
        "all_merges": merged,
        "weak_merges": weak,
        "deterministic_count": len(merged),
        "messages": [
            f"{len(concepts)} concepts, {len(names)} names; {len(merged)} variants found by"
            f" code; the generator works on {mode}."
        ],
    }
    emit(
        "load",
        "generation",
        update["messages"][0],
        {**state, **update},
        latest_merges=list(merged.values()),
        merges_found=len(merged),
    )
    return update


def route_after_load(state: NormalizationState) -> Literal["generation", "finish"]:
    """Nothing to compare with fewer than two concepts."""
    return "generation" if len(state.get("concepts", [])) >= 2 else "finish"


def _calls(state: NormalizationState, runtime: Runtime[FlowContext]) -> list[list[str]]:
    """The concept ids of each generator call of this iteration."""
    if not state.get("units"):
        return [[c["id"] for c in state.get("concepts", [])]]
    units = [state["units"][i] for i in state.get("active_units", [])]
    cost = name_costs(concept_names(ConceptInfo(**c) for c in state["concepts"]))
    blocks = pack(units, cost, _block_budget(runtime))
    return [list(dict.fromkeys(cid for i in block for cid in units[i])) for block in blocks]


async def _generate_one(
    runtime: Runtime[FlowContext], ids: list[str], state: NormalizationState
) -> list[Merge]:
    """One generator call over the names of these concepts; proposals as merge dicts."""
    wanted = set(ids)
    concepts = [ConceptInfo(**c) for c in state["concepts"] if c["id"] in wanted]
    names = concept_names(concepts)
    by_name = {n.name: n.concept_id for n in names}
    weak = [
        w
        for w in state.get("weak_merges", {}).values()
        if w["a_id"] in wanted and w["b_id"] in wanted
    ]
    room = prompts.merges_that_fit(list(by_name), _max_tokens(runtime))
    limit = min(_settings(runtime).max_merges_per_call, room)
    answer = await runtime.context.llm.structured(
        prompts.generator_messages(list(by_name), format_weak(weak), len(weak)),
        prompts.MergeBatch,
        role="default",
        json_schema=prompts.generator_schema(list(by_name), limit),
    )
    found = []
    for item in answer.merges:
        a, b = by_name.get(item.concept_a), by_name.get(item.concept_b)
        if a and b and a != b:
            found.append(make_merge(a, b, item.concept_a, item.concept_b, item.reason))
    return found


async def generation(
    state: NormalizationState, runtime: Runtime[FlowContext]
) -> NormalizationState:
    """The generator proposes merges; known weak and already accepted keys are dropped."""
    iteration = state.get("iteration", 0) + 1
    known = set(state.get("all_merges", {})) | set(state.get("weak_merges", {}))
    batch: dict[str, Merge] = {}
    skipped: list[Mapping[str, object]] = []
    calls = _calls(state, runtime)
    for n, ids in enumerate(calls, start=1):
        try:
            proposals = await _generate_one(runtime, ids, state)
        except LLMError as exc:  # an invalid answer is skipped (said so); no answer fails here
            raise_unless_fallback(exc)
            where = f" (block {n} of {len(calls)})" if len(calls) > 1 else ""
            skipped.append(
                skipped_entry(
                    "generation",
                    f"generator call of iteration {iteration}{where}, {len(ids)} concepts",
                    exc,
                    "no merges proposed among these names in this iteration",
                )
            )
            continue
        for merge in proposals:
            if merge["key"] not in known and merge["key"] not in batch:
                batch[merge["key"]] = merge
        where = f" (block {n} of {len(calls)})" if state.get("units") else ""
        emit(
            "generation",
            "generation",
            f"Generator: iteration {iteration}{where}, {len(batch)} new proposals so far.",
            state,
            iteration=iteration,
        )
    return {"iteration": iteration, "new_merge_batch": list(batch.values()), "skipped": skipped}


async def _validate_chunk(
    runtime: Runtime[FlowContext], chunk: list[Merge], definitions: Mapping[str, str]
) -> list[tuple[Merge, prompts.WeakMergeItem]]:
    answer = await runtime.context.llm.structured(
        prompts.validator_messages(chunk, definitions),
        prompts.ValidationResult,
        role="default",
        json_schema=prompts.validator_schema(len(chunk)),
    )
    by_id = {f"m{i}": merge for i, merge in enumerate(chunk, start=1)}
    return [(by_id[w.merge_id], w) for w in answer.weak_merges if w.merge_id in by_id]


async def _judge(
    runtime: Runtime[FlowContext], batch: list[Merge], state: NormalizationState
) -> tuple[list[Merge], dict[str, Merge], list[Mapping[str, object]]]:
    """(accepted, new weak by key, skipped). A chunk whose answer stays invalid is not
    accepted (fail closed, said so); a chunk the model does not answer fails the run here."""
    definitions = {c["id"]: ConceptInfo(**c).definition() for c in state.get("concepts", [])}
    size = min(_settings(runtime).validation_batch, prompts.weak_that_fit(_max_tokens(runtime)))
    accepted: list[Merge] = []
    weak: dict[str, Merge] = {}
    skipped: list[Mapping[str, object]] = []
    for start in range(0, len(batch), size):
        chunk = batch[start : start + size]
        try:
            judged = await _validate_chunk(runtime, chunk, definitions)
        except LLMError as exc:
            raise_unless_fallback(exc)
            names = ", ".join(f"{m['a_name']} = {m['b_name']}" for m in chunk[:3])
            skipped.append(
                skipped_entry(
                    "validation",
                    f"evaluator call on {len(chunk)} proposed merges ({names}...)",
                    exc,
                    "these merges are not accepted (and may be proposed again)",
                )
            )
            continue
        for merge, item in judged:
            weak[merge["key"]] = {
                **merge,
                "reason": item.reason,
                "explanation": item.explanation,
                "origin": "evaluator",
            }
        accepted.extend(m for m in chunk if m["key"] not in weak)
    return accepted, weak, skipped


def _next_active(
    state: NormalizationState,
    merged: Mapping[str, Merge],
    latest: list[Merge],
    new_weak: Mapping[str, Merge],
) -> list[int]:
    """Units to re-ask: those whose prompt changed (a new weak merge among their names), and
    those that gave a new merge while some of their names are still in no merge. A unit whose
    prompt is unchanged and whose names are settled would only repeat itself."""
    units = state.get("units") or []
    settled = {cid for m in merged.values() for cid in (m["a_id"], m["b_id"])}
    active = []
    for index, unit in enumerate(units):
        members = set(unit)
        weak = any({w["a_id"], w["b_id"]} <= members for w in new_weak.values())
        found = any(m["a_id"] in members or m["b_id"] in members for m in latest)
        if weak or (found and not members <= settled):
            active.append(index)
    return active


async def validation(
    state: NormalizationState, runtime: Runtime[FlowContext]
) -> NormalizationState:
    """The evaluator returns weak merges; accepted = batch minus every weak key ever seen."""
    batch = state.get("new_merge_batch", [])
    accepted, new_weak, skipped = await _judge(runtime, batch, state) if batch else ([], {}, [])
    if new_weak:
        ReviewsRepo(runtime.context.store).add_weak(new_weak.values(), runtime.context.run_id)
    weak = {**state.get("weak_merges", {}), **new_weak}
    result = accumulate(state.get("all_merges", {}), accepted, weak)
    trend = [*state.get("new_unique_merges_trend", []), result.new_unique]
    activity = (
        f"Evaluator: iteration {state.get('iteration', 0)}, {result.new_unique} new merges,"
        f" {len(new_weak)} weak."
    )
    emit(
        "validation",
        "validation",
        activity,
        state,
        merges_found=result.new_unique,
        total_merges=len(result.all_merges),
        latest_merges=result.latest,
        weak_count=len(weak),
        latest_weak=list(new_weak.values()),
        new_unique_merges_trend=trend,
    )
    return {
        "all_merges": result.all_merges,
        "weak_merges": weak,
        "latest_merges": result.latest,
        "new_unique_merges": result.new_unique,
        "new_unique_merges_trend": [result.new_unique],
        "active_units": _next_active(state, result.all_merges, result.latest, new_weak),
        "converged": converged(state, trend, runtime),
        "skipped": skipped,
        "messages": [activity],
    }


def converged(state: NormalizationState, trend: list[int], runtime: Runtime[FlowContext]) -> bool:
    """Stop on < min_new_merges new merges for `patience` iterations, or at max_iterations."""
    s = _settings(runtime)
    return should_stop(
        trend,
        state.get("iteration", 0),
        max_iterations=s.max_iterations,
        min_new=s.min_new_merges,
        patience=s.patience,
    )


def route_convergence(state: NormalizationState) -> Literal["continue", "end"]:
    """The evaluator's convergence verdict."""
    return "end" if state.get("converged") else "continue"


async def finish(state: NormalizationState, runtime: Runtime[FlowContext]) -> NormalizationState:
    """Store the review: every accepted merge as a pending item."""
    merges = list(state.get("all_merges", {}).values())
    review_id = ""
    if merges:
        review_id = runtime.context.run_id or uuid.uuid4().hex
        ReviewsRepo(runtime.context.store).create(
            review_id,
            runtime.context.run_id,
            merges,
            list(state.get("new_unique_merges_trend", [])),
        )
    skipped = list(state.get("skipped", []))
    activity = outcome_line(len(merges), len(skipped))
    emit(
        "finish",
        "complete",
        activity,
        state,
        requires_review=bool(merges),
        review_id=review_id or None,
        latest_merges=merges,
        merges_found=len(merges),
        new_unique_merges_trend=list(state.get("new_unique_merges_trend", [])),
        skipped=skipped,
    )
    return {"review_id": review_id, "messages": [activity]}


def outcome_line(merges: int, skipped: int) -> str:
    """How the run ended, in one line: partial when model calls gave invalid answers."""
    found = f"{merges} merges to review" if merges else "no merges to propose"
    if skipped:
        return (
            f"Partial: {found}; {skipped} model call(s) gave invalid answers, so merges among "
            "their names may be missing (run normalization again to retry them)."
        )
    return f"Done: {found}."
