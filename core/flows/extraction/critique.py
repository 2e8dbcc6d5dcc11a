"""Self-critique (1.2) and refinement (1.3).

1.2 runs the evaluation framework (criteria `concept_extraction`, no human) after code has
checked what code can: unattributed quotes, disconnected concepts, concepts not in the
configured language, ids that do not exist. 1.3 is asked as the critique's next turn, so the
server's prompt cache serves the critique's prompt to it (`after_critique`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, TypeVar

from langgraph.runtime import Runtime

from core.context import FlowContext
from core.evaluation import (
    COMPACT_ANSWER,
    CriteriaError,
    EvaluationFailure,
    EvaluationNodeOptions,
    EvaluationResult,
    evaluation_messages,
    load_criteria,
)
from core.evaluation.options import OptionChanges
from core.flows.extraction.checks import code_checks
from core.flows.extraction.nodes import options, report, unchecked
from core.flows.extraction.proposal import Proposal
from core.flows.extraction.records import (
    CritiqueRound,
    Issue,
    SkippedRecord,
)
from core.flows.extraction.revision import (
    FeedbackRevision,
    Labels,
    Revision,
    apply_revision,
    proposal_existing_ids,
    render_proposal,
    revision_followup,
    revision_messages,
    revision_schema,
)
from core.flows.extraction.state import ExtractionState
from core.model_failures import raise_unless_fallback, skipped_entry
from local_llm import LLMError
from local_llm.tokens import count_text

MAX_EXISTING_LABELS = 40


async def critique_checks(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Step 1.2, code part."""
    proposal = Proposal.model_validate(state["proposal"])
    quote_ids = [q["id"] for q in state.get("quotes", [])]
    referenced = {e.concept_id for e in proposal.existing}
    referenced |= {end for r in proposal.relations for end in (r.source_id, r.target_id)}
    referenced -= proposal.new_ids()
    known: set[str] = set()
    if referenced:
        marks = ",".join("?" * len(referenced))
        sql = f"SELECT entity_id FROM concepts WHERE entity_id IN ({marks})"
        known = {row[0] for row in runtime.context.store.query(sql, list(referenced))}
    cleaned, issues = code_checks(proposal, quote_ids, known, options(runtime).language)
    high = sum(i["severity"] == "high" for i in issues)
    report("1.2", f"code checks: {len(issues)} issue(s), {high} blocking", issues=len(issues))
    return {"proposal": cleaned.model_dump(mode="json"), "code_issues": issues}


# -- 1.2 evaluation ----------------------------------------------------------------------------


def labels_for(state: ExtractionState, proposal: Proposal) -> Labels:
    return Labels.build(
        proposal, proposal_existing_ids(proposal, state.get("pools", {}), MAX_EXISTING_LABELS)
    )


def rendered(state: ExtractionState) -> str:
    proposal = Proposal.model_validate(state["proposal"])
    quote_ids = [q["id"] for q in state.get("quotes", [])]
    return render_proposal(proposal, labels_for(state, proposal), state.get("known", {}), quote_ids)


R = TypeVar("R", bound=Revision)

PROMPT_RESERVE = 1800
"""Tokens kept for the instructions and the rubric around the content of a prompt."""


def issues_text(issues: Sequence[Issue], limit: int = 30) -> str:
    """Issues grouped by what is wrong (`- [criterion] what: where, where, ...`), so hundreds
    of unattributed quotes take one line; at most `limit` lines."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for item in issues:
        grouped.setdefault((item["criterion"], item["what"]), []).append(item["where"])
    lines = []
    for (criterion, what), wheres in list(grouped.items())[:limit]:
        shown = ", ".join(wheres[:12]) + (
            f" and {len(wheres) - 12} more" if len(wheres) > 12 else ""
        )
        lines.append(f"- [{criterion}] {what}: {shown}")
    return "\n".join(lines) or "- none"


def fit_quotes(quotes: list[dict[str, str]], tokens: int) -> str:
    """As many quotes as fit in `tokens` (estimated), in note order; the rest counted."""
    lines: list[str] = []
    used = 0
    for quote in quotes:
        line = f"[{quote['id']}] {quote['text']}"
        cost = count_text(line) + 1
        if used + cost > tokens:
            lines.append(f"({len(quotes) - len(lines)} more quotes not shown)")
            break
        lines.append(line)
        used += cost
    return "\n".join(lines)


def shown_ids(state: ExtractionState) -> list[str]:
    """The ids the critique's prompt shows (concept labels, quote ids, relation ids): where
    an issue is, named by id instead of restated text."""
    proposal = Proposal.model_validate(state["proposal"])
    labels = labels_for(state, proposal)
    quotes = [q["id"] for q in state.get("quotes", [])]
    return [*labels.new, *labels.existing, *quotes, *(r.id for r in proposal.relations)]


def critique_options() -> EvaluationNodeOptions[ExtractionState]:
    """The self-critique: criteria `concept_extraction`, the judge role, no human."""

    def configure(
        state: ExtractionState, runtime: Runtime[FlowContext]
    ) -> OptionChanges[ExtractionState]:
        found = issues_text(state.get("code_issues", []))
        language = f"Concepts must be written in {options(runtime).language}."
        issues = f"Found by code (certain):\n{found}"
        budget = runtime.context.llm.budget("judge")
        room = max(200, budget - count_text(rendered(state) + language + issues) - PROMPT_RESERVE)

        def context(s: ExtractionState) -> str:
            # what every round shares first (the quotes), what changes last (code's findings):
            # the server's prompt cache serves the shared start again
            quotes = fit_quotes(s.get("quotes", []), room)
            return f"{language}\nQuotes of the source:\n{quotes}\n{issues}"

        user_criteria = (
            runtime.context.settings.data_dir / "criteria",
        )  # overrides the shipped file
        return {
            "timeout_s": options(runtime).timeout_s,
            "context_extractor": context,
            "criteria_dirs": user_criteria,
            "answer_limits": replace(COMPACT_ANSWER, where_choices=tuple(shown_ids(state))),
        }

    return EvaluationNodeOptions[ExtractionState](
        content_type="concept_extraction",
        content_extractor=rendered,
        result_field="critique",
        status_field="critique_status",
        model_role="judge",
        human_review=False,
        reraise_unanswered=True,
        answer_limits=COMPACT_ANSWER,
        configure=configure,
    )


def critique_gate(state: ExtractionState) -> ExtractionState:
    """Combine code's findings and the judge's verdict; log the round.

    The round passes only when every criterion of the checklist passes (spec 1.4: the loop
    continues while the checklist has failures) and code found nothing blocking."""
    issues = state.get("code_issues", [])
    blocking = [i for i in issues if i["severity"] == "high"]
    status = state.get("critique_status")
    round_no = state.get("critique_round", 0) + 1
    entry: CritiqueRound = {"round": round_no, "code_issues": issues, "status": status}
    skipped: list[SkippedRecord] = []
    if status in ("approved", "revision_requested") and state.get("critique"):
        result = EvaluationResult.model_validate(state["critique"])
        failing = [c.name for c in result.criteria if not c.passed]
        entry |= {
            "passed": not failing and not blocking,
            "overall": result.overall_score,
            "failing": failing,
            "scores": result.scores,
            "summary": result.summary(),
            "feedback": result.feedback,
            "suggestions": result.suggestions,
            "issues": [
                {"criterion": c.id, "what": i.what, "where": i.where}
                for c in result.criteria
                for i in c.issues
            ],
        }
    else:
        why = "; ".join(state.get("errors", [])[-1:]) or "no answer"
        entry |= {"passed": None if not blocking else False, "summary": f"not done: {why}"}
        skipped.append(
            {
                "step": "1.2",
                "what": f"self-critique round {round_no}",
                "why": why,
                "fallback": "the extraction goes on without the model's critique",
            }
        )
    if entry.get("passed") is False and no_better(state.get("critique_log", []), entry):
        entry["stalled"] = True
        entry["summary"] = f"{entry.get('summary')}; no better than before: refinements end"
    report("1.2", f"critique {round_no}: {entry.get('summary')}", round=round_no)
    return {"critique_round": round_no, "critique_log": [entry], "skipped": skipped}


def no_better(log: Sequence[CritiqueRound], entry: CritiqueRound) -> bool:
    """Whether the last refinement improved nothing the critique measures: the same failing
    criteria or more, no higher overall score, no fewer blocking findings of code than the
    round before. Another refinement would start from as bad a place (spec 1.4: the loop
    converges on the checklist; it tracks quality across rounds)."""
    before = next((e for e in reversed(log) if e.get("overall") is not None), None)
    if before is None or entry.get("overall") is None:
        return False
    blocking = sum(i["severity"] == "high" for i in entry.get("code_issues", []))
    blocked = sum(i["severity"] == "high" for i in before.get("code_issues", []))
    return (
        set(entry.get("failing", [])) >= set(before.get("failing", []))
        and entry["overall"] <= before["overall"]
        and blocking >= blocked
    )


def route_after_critique(
    state: ExtractionState, runtime: Runtime[FlowContext]
) -> Literal["refine", "review"]:
    """Refine while any criterion fails, the last refinement improved something and
    refinements are left; else the human review."""
    log = state.get("critique_log")
    if (
        log
        and log[-1].get("passed") is False
        and not log[-1].get("stalled")
        and state.get("critique_round", 0) <= options(runtime).max_critique_iterations
    ):
        return "refine"
    return "review"


# -- 1.3 / 2.3 ---------------------------------------------------------------------------------


def after_critique(
    state: ExtractionState, runtime: Runtime[FlowContext], found: str
) -> list[dict[str, str]] | None:
    """The refinement as the critique's next turn: the judge's prompt byte for byte (the
    rubric, the quotes, the extraction with its labels), what it found as its answer, then
    the request for changes. The server has just read that prompt for the critique, so it
    evaluates only the last two turns (a separate refinement prompt shared nothing with the
    critique's: 10 of 1,271 tokens from the cache). None when it does not fit the budget."""
    judge = critique_options().for_run(state, runtime)
    try:
        loaded = load_criteria(judge.criteria_ref, judge.content_type, judge.criteria_dirs)
        judged = evaluation_messages(judge, loaded, state)
    except (CriteriaError, EvaluationFailure):
        return None
    messages = [
        *judged,
        {"role": "assistant", "content": f"Problems found:\n{found}"},
        {"role": "user", "content": revision_followup(options(runtime).language)},
    ]
    llm = runtime.context.llm
    if llm.count_tokens(messages, role="default") > llm.budget("default"):
        return None
    return messages


async def revise(
    state: ExtractionState,
    runtime: Runtime[FlowContext],
    instructions: str,
    model: type[R],
    messages: list[dict[str, str]] | None = None,
) -> tuple[Proposal, R | None, LLMError | None]:
    """Ask for changes and apply them: (proposal, answer, None), or (the proposal unchanged,
    None, the error) when the answer stayed invalid after re-asks. `messages` replaces the
    prompt built from `instructions` (the refinement after a critique)."""
    proposal = Proposal.model_validate(state["proposal"])
    quotes = state.get("quotes", [])
    labels = labels_for(state, proposal)
    known = state.get("known", {})
    llm, language = runtime.context.llm, options(runtime).language
    if messages is None:
        text = render_proposal(proposal, labels, known, [q["id"] for q in quotes])
        room = max(200, llm.budget("default") - count_text(text + instructions) - PROMPT_RESERVE)
        messages = revision_messages(
            text,
            fit_quotes(quotes, room),
            instructions,
            language,
            feedback=model is FeedbackRevision,
        )
    schema = revision_schema(
        model, labels, [q["id"] for q in quotes], [r.id for r in proposal.relations]
    )
    try:
        answer = await llm.structured(messages, model, role="default", json_schema=schema)
    except LLMError as exc:
        raise_unless_fallback(exc)
        return proposal, None, exc
    return apply_revision(proposal, answer, labels, known, [q["id"] for q in quotes]), answer, None


async def refine(state: ExtractionState, runtime: Runtime[FlowContext]) -> ExtractionState:
    """Call 1.3: address the critique's issues; concepts it adds go through 1.1b-1.1e."""
    log = state.get("critique_log")
    last: CritiqueRound | None = log[-1] if log else None
    lines = [issues_text([*last.get("code_issues", []), *last.get("issues", [])] if last else [])]
    lines += [f"- suggestion: {s}" for s in (last.get("suggestions", []) if last else [])]
    found = "\n".join(lines)
    instructions = "Fix these problems found by the self-critique:\n" + found
    before = Proposal.model_validate(state["proposal"])
    messages = after_critique(state, runtime, found)
    proposal, _answer, error = await revise(state, runtime, instructions, Revision, messages)
    round_no = state.get("critique_round", 0)
    # the critique reads the concepts, quotes and relations (not the notes): when those did
    # not change, it would see the same prompt and give the same verdict, so the loop is over
    unchanged = _critiqued(proposal) == _critiqued(before)
    done = "changed nothing; the critique stands" if unchanged else ""
    report("1.3", f"refinement {round_no}: {done or f'{len(proposal.concepts)} concept(s)'}")
    skipped: list[SkippedRecord] = []
    if error is not None:
        skipped = [
            skipped_entry(
                "1.3",
                f"refinement {round_no}",
                error,
                "the extraction stays as the critique found it",
            )
        ]
    return {
        "proposal": proposal.model_dump(mode="json"),
        "skipped": skipped,
        "pending": unchecked(state, proposal),
        "return_to": "review" if unchanged else "critique_checks",
    }


def _critiqued(proposal: Proposal) -> dict[str, object]:
    """What of a proposal the self-critique reads."""
    return proposal.model_dump(mode="json", exclude={"notes"})
