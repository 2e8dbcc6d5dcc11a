"""Step 1.2's code part: what code decides about a proposal before the self-critique sees it
(unknown quote ids, concepts in another language, links to concepts that do not exist, two
new concepts with one title, relations to unknown concepts, unattributed quotes, concepts
with no relation). Blocking issues (severity high) keep the critique loop going."""

from __future__ import annotations

from core.flows.extraction.proposal import NewConcept, Proposal, dedupe_relations
from core.flows.extraction.records import Issue
from core.flows.extraction.text import is_other_language, normalize_title


def issue(criterion: str, what: str, where: str, severity: str) -> Issue:
    return {"criterion": criterion, "what": what, "where": where, "severity": severity}


def code_checks(
    proposal: Proposal, quote_ids: list[str], known: set[str], language: str
) -> tuple[Proposal, list[Issue]]:
    """What code decides about a proposal; ids that do not exist are removed."""
    concepts, issues = _checked_concepts(proposal.concepts, set(quote_ids), language)
    existing = [e for e in proposal.existing if e.concept_id in known]
    issues += [
        issue("distinctness", "existing concept id does not exist; link removed", e.title, "low")
        for e in proposal.existing
        if e.concept_id not in known
    ]
    issues += _same_titles(concepts)
    relations = dedupe_relations(proposal.relations, {c.id for c in concepts}, known)
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


def _checked_concepts(
    concepts: list[NewConcept], valid: set[str], language: str
) -> tuple[list[NewConcept], list[Issue]]:
    """The concepts without unknown quote ids (a concept left with none is dropped), and
    the issues: the ids removed, a concept written in another language."""
    kept: list[NewConcept] = []
    issues: list[Issue] = []
    for c in concepts:
        bad = [q for q in c.quote_ids if q not in valid]
        if bad:
            what = f"unknown quote ids removed: {', '.join(bad)}"
            issues.append(issue("quote_coverage", what, c.title, "low"))
            c = c.model_copy(update={"quote_ids": [q for q in c.quote_ids if q in valid]})
        other = is_other_language(f"{c.title}. {c.short_summary}. {c.concept}", language)
        if other:
            issues.append(issue("language", f"written in {other}, not {language}", c.title, "high"))
        if c.quote_ids:
            kept.append(c)
    return kept, issues


def _same_titles(concepts: list[NewConcept]) -> list[Issue]:
    """A new concept whose title normalizes like an earlier one's (blocking)."""
    seen: dict[str, str] = {}
    issues = []
    for c in concepts:
        key = normalize_title(c.title)
        if key in seen:
            what = f"same title as another new concept ({seen[key]!r})"
            issues.append(issue("distinctness", what, c.title, "high"))
        seen.setdefault(key, c.title)
    return issues
