"""Calls 1.3 (refinement after the self-critique) and 2.3 (the reviewer's feedback).

Both answer with CHANGES to the proposal rather than the whole proposal again: drop, edit
or add concepts, link or unlink quotes, add or drop relations. A change list is short even
for a source with hundreds of quotes, and every id in it is bounded to the labels shown, so
code applies it safely (`apply_revision`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from core.domain import RelationType
from core.evaluation.prompts import delimit
from core.flows.extraction.prompts import (
    MAX_ANALYSIS,
    MAX_CONCEPT,
    MAX_QUOTES_PER_CONCEPT,
    MAX_REASON,
    MAX_SHORT,
    MAX_SUMMARY,
    MAX_TITLE,
    _data_rule,
    language_name,
    relation_types_text,
)
from core.flows.extraction.proposal import (
    ExistingLink,
    NewConcept,
    Proposal,
    ProposedRelation,
    dedupe_relations,
    merge_links,
)
from core.flows.extraction.records import KnownConcept
from core.flows.extraction.text import clip_words, normalize_title
from local_llm.schema import JsonSchema, bounded_schema


class ConceptEdit(BaseModel):
    concept: str
    """Label of the new concept to edit."""
    title: str
    short_summary: str
    summary: str = ""
    concept_text: str
    analysis: str


class ConceptAdd(BaseModel):
    title: str
    short_summary: str
    summary: str = ""
    """At most 100 words (the note's `summary`)."""
    concept: str
    analysis: str
    quote_ids: list[str]


class QuoteLink(BaseModel):
    quote_id: str
    concept: str


class RelationOp(BaseModel):
    source: str
    type: RelationType
    target: str


class Revision(BaseModel):
    """Changes to the proposal (1.3). Empty strings in an edit keep the old text."""

    changes: str = ""
    """What is changed and why, in a sentence or two."""
    drop_concepts: list[str] = Field(default_factory=list)
    edit_concepts: list[ConceptEdit] = Field(default_factory=list)
    add_concepts: list[ConceptAdd] = Field(default_factory=list)
    link_quotes: list[QuoteLink] = Field(default_factory=list)
    unlink_quotes: list[QuoteLink] = Field(default_factory=list)
    add_relations: list[RelationOp] = Field(default_factory=list)
    drop_relations: list[str] = Field(default_factory=list)


class FeedbackRevision(Revision):
    """Changes that follow the reviewer's feedback (2.3)."""

    interpretation: str = ""
    """How the feedback was understood."""
    unresolved: str = ""
    """Feedback that could not be addressed, if any."""


@dataclass
class Labels:
    """Short labels of the concepts a prompt shows: `n1`.. new, `e1`.. existing."""

    to_id: dict[str, str] = field(default_factory=dict)
    new: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, proposal: Proposal, existing_ids: Sequence[str]) -> Labels:
        labels = cls()
        for i, concept in enumerate(proposal.concepts, 1):
            labels.to_id[f"n{i}"] = concept.id
            labels.new.append(f"n{i}")
        for i, concept_id in enumerate(dict.fromkeys(existing_ids), 1):
            labels.to_id[f"e{i}"] = concept_id
            labels.existing.append(f"e{i}")
        return labels

    def of(self, concept_id: str) -> str:
        return next((k for k, v in self.to_id.items() if v == concept_id), concept_id)


def proposal_existing_ids(
    proposal: Proposal, pools: Mapping[str, Sequence[str]], cap: int
) -> list[str]:
    """Existing concepts a revision may refer to: those in the proposal, then pooled ones."""
    new = proposal.new_ids()
    ids = [e.concept_id for e in proposal.existing]
    ids += [end for r in proposal.relations for end in (r.source_id, r.target_id) if end not in new]
    ids += [cid for pool in pools.values() for cid in pool]
    return list(dict.fromkeys(ids))[:cap]


def render_proposal(
    proposal: Proposal,
    labels: Labels,
    known: Mapping[str, KnownConcept],
    quote_ids: Sequence[str],
) -> str:
    """The proposal as the model (and the critique) reads it."""
    lines = ["New concepts:"] if proposal.concepts else ["New concepts: none"]
    for c in proposal.concepts:
        lines.append(f"[{labels.of(c.id)}] {c.title} — {c.short_summary}")
        lines.append(f"    concept: {clip_words(c.concept, 80)}")
        lines.append(f"    quotes: {', '.join(c.quote_ids) or 'none'}")
    for e in proposal.existing:
        lines.append(
            f"Existing [{labels.of(e.concept_id)}] {e.title} gets quotes: {', '.join(e.quote_ids)}"
        )
    if proposal.relations:
        lines.append("Relations:")
    for r in proposal.relations:
        lines.append(
            f"[{r.id}] {labels.of(r.source_id)} {r.type.value} {labels.of(r.target_id)} — {r.explanation}"
        )
    others = [cid for cid in (labels.to_id[k] for k in labels.existing)]
    if others:
        lines.append("Existing concepts you may refer to:")
        lines += [
            f"[{labels.of(cid)}] {known[cid]['title'] if cid in known else cid}" for cid in others
        ]
    unattributed = proposal.unattributed(quote_ids)
    lines.append(f"Quotes supporting no concept: {', '.join(unattributed) or 'none'}")
    return "\n".join(lines)


REVISION_SYSTEM = """You improve an extraction of atomic concepts from a source's quotes.
List only CHANGES: drop_concepts (labels), edit_concepts (empty strings keep the old text),
add_concepts (with the quote ids that form them), link_quotes / unlink_quotes (quote id and
concept label), add_relations (from a new concept n.. to another concept), drop_relations
(relation ids). Concepts are atomic (one standalone idea) and written in {language}; a
summary is two or three sentences.
Relation types:
{types}
{data_rule}"""


def revision_messages(
    rendered: str, quotes_text: str, instructions: str, language: str, *, feedback: bool = False
) -> list[dict[str, str]]:
    system = REVISION_SYSTEM.format(
        language=language_name(language), types=relation_types_text(), data_rule=_data_rule()
    )
    if feedback:
        system += (
            "\nThe reviewer's feedback takes precedence over every guideline; when it is "
            "ambiguous make your best guess. Say how you understood it (interpretation) and what "
            "you could not do (unresolved)."
        )
    # the quotes are the same in every round of a run, the extraction and the instructions
    # change: the quotes go first, so the server's prompt cache serves them again
    user = (
        f"Quotes:\n{delimit(quotes_text)}\n\nCurrent extraction:\n{delimit(rendered)}\n\n"
        f"{instructions}"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def revision_followup(language: str) -> str:
    """The refinement asked as the next turn of the critique's conversation (the quotes, the
    extraction and the problems found are above it)."""
    rules = REVISION_SYSTEM.format(
        language=language_name(language), types=relation_types_text(), data_rule=_data_rule()
    )
    return f"{rules}\nList the CHANGES to the extraction above that fix the problems found."


def revision_schema(
    model: type[Revision], labels: Labels, quote_ids: Sequence[str], relation_ids: Sequence[str]
) -> JsonSchema:
    """The bounded schema: every label, quote id and relation id is one of those shown."""
    new, every = labels.new, labels.new + labels.existing
    max_items = {"add_concepts": 3 if quote_ids else 0, "edit_concepts": min(len(new), 5)}
    max_items |= {"link_quotes": 10 if every else 0, "unlink_quotes": 10 if every else 0}
    max_items |= {"add_relations": 6 if new and len(every) > 1 else 0}
    # every list bounded, so the longest valid answer is known and sets max_tokens
    max_items |= {"drop_concepts": len(new), "drop_relations": len(relation_ids)}
    max_items |= {"add_concepts.quote_ids": min(len(quote_ids), MAX_QUOTES_PER_CONCEPT)}
    enums: dict[str, Sequence[str]] = {"drop_concepts": new, "drop_relations": list(relation_ids)}
    if new:
        enums["edit_concepts.concept"] = new
    if every:
        enums |= {"link_quotes.concept": every, "unlink_quotes.concept": every}
    if quote_ids:
        enums |= {"quote_id": list(quote_ids), "add_concepts.quote_ids": list(quote_ids)}
    if new and len(every) > 1:
        enums |= {"add_relations.source": new, "add_relations.target": every}
    lengths = {
        "title": MAX_TITLE,
        "short_summary": MAX_SHORT,
        "summary": MAX_SUMMARY,
        "concept_text": MAX_CONCEPT,
        "add_concepts.concept": MAX_CONCEPT,
        "analysis": MAX_ANALYSIS,
        "changes": MAX_REASON,
    }
    if model is FeedbackRevision:
        lengths |= {"interpretation": MAX_REASON, "unresolved": MAX_REASON}
    return bounded_schema(
        model,
        enums=enums,
        max_items=max_items,
        max_length=lengths,
        min_items={"add_concepts.quote_ids": 1} if quote_ids else None,
    )


def _edited(concept: NewConcept, edit: ConceptEdit) -> NewConcept:
    update = {
        key: value.strip()
        for key, value in (
            ("title", edit.title),
            ("short_summary", edit.short_summary),
            ("summary", edit.summary),
            ("concept", edit.concept_text),
            ("analysis", edit.analysis),
        )
        if value.strip()
    }
    if "summary" in update:
        update["summary"] = clip_words(update["summary"], 100)
    elif "concept" in update:  # a new text without a new summary: the old one would be wrong
        update["summary"] = clip_words(update["concept"], 100)
    return concept.model_copy(update=update)


def _quotes(
    item: NewConcept | ExistingLink, add: Sequence[str] = (), remove: Sequence[str] = ()
) -> list[str]:
    return [q for q in dict.fromkeys([*item.quote_ids, *add]) if q not in remove]


def apply_revision(
    proposal: Proposal,
    revision: Revision,
    labels: Labels,
    known: Mapping[str, KnownConcept],
    quote_ids: Sequence[str],
) -> Proposal:
    """The proposal with the revision's changes applied; unknown labels are ignored."""
    ids, valid_quotes = labels.to_id, set(quote_ids)
    concepts = _revised_concepts(proposal, revision, ids, valid_quotes)
    concepts, existing = _relinked_quotes(
        concepts, list(proposal.existing), revision, ids, known, valid_quotes
    )
    notes = [*proposal.notes, revision.changes] if revision.changes.strip() else proposal.notes
    return Proposal(
        concepts=[c for c in concepts if c.quote_ids],
        existing=merge_links(existing),
        relations=dedupe_relations(
            _revised_relations(proposal, revision, ids), {c.id for c in concepts}, set(known)
        ),
        notes=notes,
    )


def _revised_concepts(
    proposal: Proposal, revision: Revision, ids: Mapping[str, str], valid_quotes: set[str]
) -> list[NewConcept]:
    """The new concepts after the revision's drops, edits and additions (an addition needs a
    title and at least one real quote)."""
    dropped = {ids[label] for label in revision.drop_concepts if label in ids}
    edits = {ids[e.concept]: e for e in revision.edit_concepts if e.concept in ids}
    concepts = [
        _edited(c, edits[c.id]) if c.id in edits else c
        for c in proposal.concepts
        if c.id not in dropped
    ]
    for add in revision.add_concepts:
        quotes = [q for q in add.quote_ids if q in valid_quotes]
        if add.title.strip() and quotes:
            concepts.append(
                NewConcept(
                    title=add.title.strip(),
                    short_summary=add.short_summary,
                    concept=add.concept,
                    summary=clip_words(add.summary or add.concept, 100),
                    analysis=add.analysis,
                    quote_ids=quotes,
                    rationale="added by refinement",
                )
            )
    return _one_per_title(concepts)


def _one_per_title(concepts: list[NewConcept]) -> list[NewConcept]:
    """Concepts that a revision left with one title become one, quotes united: a small model
    retitles concepts or adds one under a title another already has (Gemma 3 270M's refinements
    named three concepts 'Cómo aprendemos'), and one idea cannot be two notes of one name."""
    kept: dict[str, NewConcept] = {}
    for concept in concepts:
        key = normalize_title(concept.title)
        first = kept.get(key)
        if first is None:
            kept[key] = concept
            continue
        quotes = list(dict.fromkeys([*first.quote_ids, *concept.quote_ids]))
        kept[key] = first.model_copy(update={"quote_ids": quotes})
    return list(kept.values())


def _relinked_quotes(
    concepts: list[NewConcept],
    existing: list[ExistingLink],
    revision: Revision,
    ids: Mapping[str, str],
    known: Mapping[str, KnownConcept],
    valid_quotes: set[str],
) -> tuple[list[NewConcept], list[ExistingLink]]:
    """The revision's quote links and unlinks, on new concepts and on existing ones."""
    for link, remove in [(x, False) for x in revision.link_quotes] + [
        (x, True) for x in revision.unlink_quotes
    ]:
        target = ids.get(link.concept)
        if target is None or link.quote_id not in valid_quotes:
            continue
        change = ([], [link.quote_id]) if remove else ([link.quote_id], [])
        concepts = [
            c.model_copy(update={"quote_ids": _quotes(c, *change)}) if c.id == target else c
            for c in concepts
        ]
        if target in known and not any(c.id == target for c in concepts):
            if not remove and not any(e.concept_id == target for e in existing):
                title = str(known[target].get("title", target))
                existing.append(ExistingLink(concept_id=target, title=title, decided_by="model"))
            existing = [
                e.model_copy(update={"quote_ids": _quotes(e, *change)})
                if e.concept_id == target
                else e
                for e in existing
            ]
    return concepts, existing


def _revised_relations(
    proposal: Proposal, revision: Revision, ids: Mapping[str, str]
) -> list[ProposedRelation]:
    """The relations without the dropped ones, with the added ones between known labels."""
    dropped = set(revision.drop_relations)
    relations = [r for r in proposal.relations if r.id not in dropped]
    return relations + [
        ProposedRelation(
            source_id=ids[op.source],
            type=op.type,
            target_id=ids[op.target],
            explanation="added by revision",
        )
        for op in revision.add_relations
        if op.source in ids and op.target in ids
    ]
