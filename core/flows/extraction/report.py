"""The review report of spec 4.2 (the interrupt payload) and its plain-text form for the CLI.

New concepts with rationale and source quotes; duplicates found; relations with type,
direction, inverse and explanation; quote attributions with multi-concept quotes marked;
warnings (unattributed quotes, disconnected concepts, ...); the critique log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.domain import RELATION_MAP
from core.flows.extraction.proposal import Proposal
from core.flows.extraction.records import CritiqueRound, KnownConcept
from core.flows.extraction.state import ExtractionReview, ExtractionState
from core.model_failures import SkippedWork, skipped_line

ACTIONS = ["approve", "feedback", "drop", "abort"]


def _titles(proposal: Proposal, known: Mapping[str, KnownConcept]) -> dict[str, str]:
    titles = {cid: str(info.get("title", cid)) for cid, info in known.items()}
    titles |= {e.concept_id: e.title for e in proposal.existing}
    return titles | {c.id: c.title for c in proposal.concepts}


def _attributions(
    proposal: Proposal, quotes: dict[str, str], titles: dict[str, str]
) -> list[dict[str, object]]:
    by_quote: dict[str, list[dict[str, object]]] = {}
    for c in proposal.concepts:
        for q in c.quote_ids:
            by_quote.setdefault(q, []).append({"id": c.id, "title": c.title, "existing": False})
    for e in proposal.existing:
        for q in e.quote_ids:
            by_quote.setdefault(q, []).append(
                {"id": e.concept_id, "title": titles.get(e.concept_id, e.title), "existing": True}
            )
    return [
        {
            "quote_id": q,
            "quote_text": quotes.get(q, ""),
            "concepts": by_quote[q],
            "multi": len(by_quote[q]) > 1,
        }
        for q in quotes
        if q in by_quote
    ]


def actions_for(proposal: Proposal, rounds_left: int) -> list[str]:
    """What the reviewer can do now: approve needs something to commit, feedback a round."""
    can_approve = bool(proposal.concepts) or any(e.quote_ids for e in proposal.existing)
    return [
        a for a in ACTIONS if (a != "approve" or can_approve) and (a != "feedback" or rounds_left)
    ]


def round_notice(rounds_left: int, max_rounds: int) -> str:
    """The warning about feedback rounds ('' while more than one is left)."""
    if rounds_left == 1:
        return "This is the last feedback round: after it you can only approve or abort."
    if rounds_left == 0:
        return (
            f"All {max_rounds} feedback rounds are used (flows.extraction.max_review_rounds): "
            "approve what stands, or abort."
        )
    return ""


def build_report(state: ExtractionState, max_rounds: int) -> ExtractionReview:
    """The review the interrupt shows (`.payload()` is its plain data)."""
    proposal = Proposal.model_validate(state.get("proposal") or {})
    rounds_left = max(0, max_rounds - state.get("review_round", 0))
    quotes = {q["id"]: q["text"] for q in state.get("quotes", [])}
    titles = _titles(proposal, state.get("known", {}))
    new_ids = proposal.new_ids()
    concepts = [
        {
            **c.model_dump(mode="json"),
            "quotes": [{"id": q, "text": quotes.get(q, "")} for q in c.quote_ids],
        }
        for c in proposal.concepts
    ]
    duplicates = [e.model_dump(mode="json") for e in proposal.existing if e.candidate]
    relations = [
        {
            "id": r.id,
            "source_id": r.source_id,
            "source_title": titles.get(r.source_id, r.source_id),
            "type": r.type.value,
            "target_id": r.target_id,
            "target_title": titles.get(r.target_id, r.target_id),
            "inverse_type": RELATION_MAP[r.type].value,
            "target_is_new": r.target_id in new_ids,
            "explanation": r.explanation,
            "confidence": r.confidence,
        }
        for r in proposal.relations
    ]
    unattributed = [{"id": q, "text": quotes[q]} for q in proposal.unattributed(quotes)]
    disconnected = [c.title for c in proposal.disconnected()]
    return ExtractionReview.model_validate(
        {
            "source": state.get("source", ""),
            "source_title": state.get("source_title", ""),
            "round": state.get("review_round", 0),
            "max_rounds": max_rounds,
            "concepts": concepts,
            "duplicates": duplicates,
            "relations": relations,
            "existing": [e.model_dump(mode="json") for e in proposal.existing],
            "attributions": _attributions(proposal, quotes, titles),
            "unattributed": unattributed,
            "disconnected": disconnected,
            "warnings": list(dict.fromkeys(state.get("warnings", []))),
            "critique_log": list(state.get("critique_log", [])),
            "notes": proposal.notes,
            "skipped": list(state.get("skipped", [])),
            "rounds_left": rounds_left,
            "round_notice": round_notice(rounds_left, max_rounds),
            "notice": state.get("review_notice", ""),
            "quote_count": len(quotes),
            "actions": actions_for(proposal, rounds_left),
        }
    )


def _critique_lines(log: list[CritiqueRound]) -> list[str]:
    lines = []
    for entry in log:
        verdict = {True: "passed", False: "failed", None: "unavailable"}[entry.get("passed")]
        lines.append(f"  round {entry.get('round')}: {verdict} — {entry.get('summary', '')}")
        lines += [f"    - {i['where']}: {i['what']}" for i in entry.get("code_issues", [])[:8]]
    return lines


def skipped_lines(skipped: Sequence[SkippedWork]) -> list[str]:
    """What a fallback replaced, for the top of the report (nothing when all was done)."""
    if not skipped:
        return []
    head = f"NOT DONE ({len(skipped)}): no usable answer from the model; a fallback stands in:"
    return [head, *(f"  ! {skipped_line(entry.model_dump())}" for entry in skipped), ""]


def report_text(review: ExtractionReview | Mapping[str, object]) -> str:
    """The report as the terminal prints it (a payload is read as the review first)."""
    r = review if isinstance(review, ExtractionReview) else ExtractionReview.model_validate(review)
    out = [
        f"Extraction of {r.source_title or r.source} (feedback round {r.round}/{r.max_rounds})",
        "",
    ]
    out += skipped_lines(r.skipped)
    out += [f"NOTE: {r.notice}", ""] if r.notice else []
    out += [r.round_notice, ""] if r.round_notice else []
    out += _concept_lines(r)
    out.append(f"Duplicates found ({len(r.duplicates)}):")
    out += [
        f"  * {d.candidate} -> {d.title} ({d.decided_by}, confidence {d.confidence:.2f}): {d.reasoning}"
        for d in r.duplicates
    ]
    out.append(f"Relations ({len(r.relations)}):")
    out += [
        f"  * [{x.id}] {x.source_title} -{x.type}-> {x.target_title} "
        f"(inverse {x.inverse_type}): {x.explanation}"
        for x in r.relations
    ]
    out += _attribution_lines(r)
    out.append("Warnings:")
    out += [f"  * unattributed quote [{q.id}] {q.text[:120]}" for q in r.unattributed]
    out += [f"  * disconnected concept: {t}" for t in r.disconnected]
    out += [f"  * {w}" for w in r.warnings]
    out.append("Model's notes:")
    out += [f"  * {note}" for note in r.notes] or ["  (none)"]
    out.append("Critique log:")
    out += _critique_lines(r.critique_log) or ["  (none)"]
    return "\n".join(out)


def _concept_lines(review: ExtractionReview) -> list[str]:
    out = [f"New concepts ({len(review.concepts)}):"]
    for c in review.concepts:
        out += [
            f"  * {c.title}  [{c.id[:8]}]",
            f"    {c.short_summary}",
            f"    concept: {c.concept}",
        ]
        out += [f"    why: {c.rationale}"] if c.rationale else []
        out += [f"    > [{q.id}] {q.text[:160]}" for q in c.quotes]
    return out


def _attribution_lines(review: ExtractionReview) -> list[str]:
    out = [f"Quote attributions ({len(review.attributions)} of {review.quote_count} quotes):"]
    for a in review.attributions:
        mark = " [several concepts]" if a.multi else ""
        out.append(
            f"  * [{a.quote_id}]{mark} -> "
            + ", ".join(f"{c.title}{' (existing)' if c.existing else ''}" for c in a.concepts)
        )
    return out


def writes_nothing(review: ExtractionReview, drops: list[dict[str, str]]) -> bool:
    """Whether approving this review with these drops would write no concept and link no
    quote to an existing one (approving still marks the source processed: work lost)."""
    dropped = {d["id"] for d in drops if d.get("kind") == "concept"}
    if any(c.id not in dropped for c in review.concepts):
        return False
    unlinked = {(d["concept_id"], d["quote_id"]) for d in drops if d.get("kind") == "attribution"}
    return all(
        (link.concept_id, quote) in unlinked for link in review.existing for quote in link.quote_ids
    )
