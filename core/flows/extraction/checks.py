"""Step 1.2's code part: what code decides about a proposal before the self-critique sees it
(unknown quote ids, concepts in another language, links to concepts that do not exist, two
new concepts with one title, relations to unknown concepts, unattributed quotes, concepts
with no relation). Blocking issues (severity high) keep the critique loop going."""

from __future__ import annotations

from typing import Any

from core.flows.extraction.proposal import Proposal, dedupe_relations
from core.flows.extraction.text import is_other_language, normalize_title


def issue(criterion: str, what: str, where: str, severity: str) -> dict[str, str]:
    return {"criterion": criterion, "what": what, "where": where, "severity": severity}


def code_checks(
    proposal: Proposal, quote_ids: list[str], known: set[str], language: str
) -> tuple[Proposal, list[dict[str, Any]]]:
    """What code decides about a proposal; ids that do not exist are removed."""
    issues, valid = [], set(quote_ids)
    concepts = []
    for c in proposal.concepts:
        bad = [q for q in c.quote_ids if q not in valid]
        if bad:
            issues.append(
                issue(
                    "quote_coverage", f"unknown quote ids removed: {', '.join(bad)}", c.title, "low"
                )
            )
            c = c.model_copy(update={"quote_ids": [q for q in c.quote_ids if q in valid]})
        other = is_other_language(f"{c.title}. {c.short_summary}. {c.concept}", language)
        if other:
            issues.append(issue("language", f"written in {other}, not {language}", c.title, "high"))
        if c.quote_ids:
            concepts.append(c)
    existing = [e for e in proposal.existing if e.concept_id in known]
    for e in proposal.existing:
        if e.concept_id not in known:
            issues.append(
                issue(
                    "distinctness",
                    "existing concept id does not exist; link removed",
                    e.title,
                    "low",
                )
            )
    seen: dict[str, str] = {}
    for c in concepts:
        key = normalize_title(c.title)
        if key in seen:
            issues.append(
                issue(
                    "distinctness",
                    f"same title as another new concept ({seen[key]!r})",
                    c.title,
                    "high",
                )
            )
        seen.setdefault(key, c.title)
    new_ids = {c.id for c in concepts}
    relations = dedupe_relations(proposal.relations, new_ids, known)
    if len(relations) < len(proposal.relations):
        issues.append(
            issue("relation_accuracy", "relations to unknown concepts removed", "relations", "low")
        )
    cleaned = Proposal(
        concepts=concepts, existing=existing, relations=relations, notes=proposal.notes
    )
    for q in cleaned.unattributed(quote_ids):
        issues.append(issue("quote_coverage", "quote supports no concept", q, "medium"))
    for c in cleaned.disconnected():
        issues.append(issue("edge_cases", "concept has no relation", c.title, "medium"))
    return cleaned, issues
