"""Call 1.1b for several candidates in one call (`duplicate_checks = "merged"`).

The specification asks one call per candidate (`detect_duplicate`, fanned out with `Send`;
`duplicate_checks = "per_candidate"`). Those calls share their instructions and, on a vault
the size of a pool, most of the existing concepts they list, and each answer is a label and
a sentence. So the candidates whose search found something go into as few calls as the
prompt budget and the answer budget allow: the existing concepts they found listed once
(first, so consecutive calls start alike), then the candidates, and one bounded verdict per
candidate. Code decides what it can first (a same name, nothing similar found), as before.
A candidate the answer leaves without a verdict is asked on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from core.context import FlowContext
from core.flows.extraction.names import KnownName, known_names, same_name
from core.flows.extraction.nodes import (
    ask_duplicate,
    concept_rows,
    detection,
    duplicate_candidates,
    known_entry,
    known_row,
    max_tokens,
    report,
)
from core.flows.extraction.prompts import (
    VERDICT_TOKENS,
    DuplicatesAnswer,
    DuplicateVerdict,
    concept_card,
    duplicates_messages,
    duplicates_schema,
    fitting,
)
from core.flows.extraction.records import (
    Candidate,
    Detection,
    ExistingMatch,
    KnownConcept,
    SkippedRecord,
)
from core.flows.extraction.state import ExtractionState
from core.model_failures import raise_unless_fallback, skipped_entry
from local_llm import LLMError
from vault.search import Hit

Asked = tuple[Candidate, list[Hit]]


async def detect_duplicates(
    state: ExtractionState, runtime: Runtime[FlowContext]
) -> ExtractionState:
    """Call 1.1b for every pending candidate: code's verdicts, then the model's in as few
    calls as fit."""
    pending = state.get("pending", [])
    names = known_names(concept_rows(runtime))
    found: list[Detection] = []
    known: dict[str, KnownConcept] = {}
    skipped: list[SkippedRecord] = []
    asks: list[Asked] = []
    for candidate in pending:
        decided, hits, searched, seen = await _by_code(runtime, candidate, names, len(pending))
        skipped += [searched] if searched else []
        known |= seen
        if decided is None:
            asks.append((candidate, hits))
        else:
            found.append(decided)
    for group in groups(runtime, asks):
        verdicts, problems = await ask_group(runtime, group, len(pending))
        found += verdicts
        skipped += problems
    return {"detections": found, "known": known, "skipped": skipped}


async def _by_code(
    runtime: Runtime[FlowContext], candidate: Candidate, names: list[KnownName], total: int
) -> tuple[Detection | None, list[Hit], SkippedRecord | None, dict[str, KnownConcept]]:
    """Code's verdict (a same name, nothing similar found), or None and the search hits for
    the model to judge; what a fallback replaced; the existing concepts it learned of."""
    match = same_name(candidate["title"], names)
    if match is not None:
        row = match.row
        report("1.1b", f"{candidate['title']!r}: duplicate of {row['title']!r} (name)", total=total)
        found = detection(candidate, row, 1.0, f"same name as {match.name!r}", "match")
        return found, [], None, {row["entity_id"]: known_row(row)}
    hits, searched = await duplicate_candidates(runtime, candidate, names)
    if not hits:
        report("1.1b", f"{candidate['title']!r}: novel (nothing similar)", total=total)
        novel = detection(candidate, None, 1.0, "no similar existing concept", "search")
        return novel, [], searched, {}
    return None, hits, searched, {h.entity_id: known_entry(h) for h in hits}


def groups(runtime: Runtime[FlowContext], asks: Sequence[Asked]) -> list[list[Asked]]:
    """The candidates to ask, in calls whose prompt fits the budget and whose verdicts fit
    the completion (in order; a candidate alone is always a group)."""
    llm = runtime.context.llm
    most = fitting(max_tokens(runtime), VERDICT_TOKENS)
    budget = llm.budget("default")
    result: list[list[Asked]] = []
    for ask in asks:
        group = result[-1] if result else []
        grown = [*group, ask]
        fits = len(grown) <= most and llm.count_tokens(prompt_of(grown)[0]) <= budget
        if group and fits:
            group.append(ask)
        else:
            result.append([ask])
    return result


def prompt_of(group: Sequence[Asked]) -> tuple[list[dict[str, str]], dict[str, Hit]]:
    """The messages of one merged call and the existing concepts by label (`e1`..)."""
    labels: dict[str, Hit] = {}
    by_id: dict[str, str] = {}
    for _candidate, hits in group:
        for hit in hits:
            if hit.entity_id not in by_id:
                label = f"e{len(labels) + 1}"
                by_id[hit.entity_id] = label
                labels[label] = hit
    existing = [(label, concept_card(h.title, h.short_summary)) for label, h in labels.items()]
    candidates = [(f"c{i}", candidate) for i, (candidate, _hits) in enumerate(group, 1)]
    return duplicates_messages(candidates, existing), labels


async def ask_group(
    runtime: Runtime[FlowContext], group: list[Asked], total: int
) -> tuple[list[Detection], list[SkippedRecord]]:
    """The model's verdicts on one group (of `total` candidates checked in this pass); those
    it left out are asked one by one."""
    messages, labels = prompt_of(group)
    keys = [f"c{i}" for i in range(1, len(group) + 1)]
    try:
        answer = await runtime.context.llm.structured(
            messages,
            DuplicatesAnswer,
            role="default",
            json_schema=duplicates_schema(keys, list(labels)),
        )
    except LLMError as exc:
        raise_unless_fallback(exc)
        kept = [(candidate, _kept_new(candidate, hits, exc)) for candidate, hits in group]
        return [detection(c, None, 0.0, str(why["why"]), "error") for c, why in kept], [
            why for _c, why in kept
        ]
    verdicts: dict[str, DuplicateVerdict] = {}
    for given in answer.verdicts:
        verdicts.setdefault(given.candidate, given)
    found: list[Detection] = []
    skipped: list[SkippedRecord] = []
    for key, (candidate, hits) in zip(keys, group, strict=True):
        verdict = verdicts.get(key)
        if verdict is None:  # the answer repeated another candidate instead
            alone, problem = await ask_duplicate(runtime, candidate, hits)
            found.append(alone)
            skipped += [problem] if problem else []
            continue
        hit = labels.get(verdict.match)
        existing: ExistingMatch | None = (
            {"entity_id": hit.entity_id, "title": hit.title} if hit else None
        )
        found.append(detection(candidate, existing, verdict.confidence, verdict.reasoning, "model"))
        said = f"duplicate of {hit.title!r}" if hit else "novel"
        report("1.1b", f"{candidate['title']!r}: {said}", total=total)
    return found, skipped


def _kept_new(candidate: Candidate, hits: list[Hit], exc: LLMError) -> SkippedRecord:
    return skipped_entry(
        "1.1b",
        f"duplicate detection of {candidate['title']!r}",
        exc,
        f"kept as a new concept without comparing it with {len(hits)} similar one(s)",
    )
