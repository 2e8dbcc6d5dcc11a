"""The evaluation nodes (spec 003, 4.1): prepare, judge, and the human review.

`create_evaluation_node(options)` returns three async LangGraph nodes. They are separate
because a node that calls `interrupt()` re-runs from its start when resumed: the model call
lives in `judge`, the interrupt alone in `review`, so resuming never calls the model again.

    prepare  input validation, criteria check, status `evaluating`        (steps 1-3)
    judge    prompt, model call with timeout, scoring, status
             `awaiting_review` (or the automatic verdict without a human)  (steps 4-8)
    review   interrupt() with the review metadata, then the human's action (spec 4.2)

`core.evaluation.graph.add_evaluation` wires them into a graph. Every failure becomes status
`error` plus an entry in `errors` and a plain message; nothing raises out of a node except
LangGraph's own interrupt.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from core.degenerate import grounded
from core.evaluation.answer import (
    EvaluationAnswer,
    answer_problems,
    answer_schema,
    degenerate_problems,
    raw_answer,
    without_wordless,
)
from core.evaluation.loader import CriteriaError, EvaluationCriteria, LoadedCriteria, load_criteria
from core.evaluation.options import EvaluationNode, EvaluationNodeOptions, S, Update
from core.evaluation.prompts import build_messages, content_text, human_readable
from core.evaluation.result import CriterionResult, EvaluationResult, Issue
from core.evaluation.review import make_review_node, review_metadata
from core.evaluation.scoring import ScoringError, Verdict, score_criteria
from core.model_failures import fallback_allowed
from core.problems import explain
from local_llm import LLMClient
from local_llm.errors import (
    ContextBudgetError,
    LLMError,
    ModelTimeoutError,
    StructuredOutputError,
)

if TYPE_CHECKING:
    from core.context import FlowContext


class EvaluationFailure(Exception):
    """A failure the node reports as status `error`: `kind` for errors, `message` for people."""

    def __init__(self, kind: str, message: str, detail: str = ""):
        super().__init__(message)
        self.kind, self.message, self.detail = kind, message, detail


@dataclass(frozen=True)
class EvaluationNodes(Generic[S]):
    """The three nodes of one evaluation (see the module docstring)."""

    prepare: EvaluationNode[S]
    judge: EvaluationNode[S]
    review: EvaluationNode[S]
    options: EvaluationNodeOptions[S]


def progress(**data: object) -> None:
    """Report progress on the custom stream; a no-op outside a streaming run."""
    with contextlib.suppress(RuntimeError, KeyError, LookupError):
        get_stream_writer()(data)


def error_update(options: EvaluationNodeOptions[S], failure: EvaluationFailure) -> Update:
    """The state update of a failed evaluation (spec 6)."""
    label = human_readable(options.content_type)
    detail = f" ({failure.detail})" if failure.detail else ""
    return {
        options.status_field: "error",
        "is_interrupted": False,
        "errors": [f"{options.content_type} evaluation: {failure.kind}: {failure.message}{detail}"],
        "messages": [f"{label} evaluation failed: {failure.message}"],
    }


def extract_content(options: EvaluationNodeOptions[S], state: S) -> object:
    """Step 1: the content, or `EvaluationFailure` when it is missing or malformed."""
    try:
        content = options.content_extractor(state)
    except Exception as exc:  # a broken extractor is a malformed state, not a crash
        raise EvaluationFailure(
            "input", "the content could not be read from the state", repr(exc)
        ) from exc
    if content is None or (isinstance(content, str | list | dict | tuple) and not content):
        raise EvaluationFailure("input", f"there is no {options.content_type} to evaluate")
    if isinstance(content, str) and not content.strip():
        raise EvaluationFailure("input", f"the {options.content_type} is empty")
    if not isinstance(content, str | list | dict | tuple | int | float):
        raise EvaluationFailure(
            "input", "the content has an unsupported type", type(content).__name__
        )
    return content


def criteria_for(options: EvaluationNodeOptions[S]) -> LoadedCriteria:
    """Step 3: the rubric (default criteria with a warning when the file is missing)."""
    try:
        return load_criteria(options.criteria_ref, options.content_type, options.criteria_dirs)
    except CriteriaError as exc:
        raise EvaluationFailure(
            "criteria", f"the criteria file {exc.path.name} is invalid", "; ".join(exc.problems)
        ) from exc


def run_options(
    base: EvaluationNodeOptions[S], state: S, runtime: Runtime[FlowContext]
) -> EvaluationNodeOptions[S]:
    """The options for this run (`configure` applied); a failing `configure` is an input error."""
    try:
        return base.for_run(state, runtime)
    except Exception as exc:
        raise EvaluationFailure(
            "configuration", "the evaluation could not be configured for this run", repr(exc)
        ) from exc


def make_prepare_node(base: EvaluationNodeOptions[S]) -> EvaluationNode[S]:
    """Steps 1-3: validate input and criteria, set status `evaluating`."""

    async def prepare(state: S, runtime: Runtime[FlowContext]) -> Update:
        options = base
        try:
            options = run_options(base, state, runtime)
            extract_content(options, state)
            loaded = criteria_for(options)
        except EvaluationFailure as failure:
            return error_update(options, failure)
        progress(
            stage="evaluating",
            content_type=options.content_type,
            criteria=loaded.criteria.id,
            message="; ".join(
                [f"evaluating against the {loaded.criteria.name} rubric", *loaded.warnings]
            ),
        )
        return {
            options.status_field: "evaluating",
            "is_interrupted": False,
            "interrupt_metadata": None,
            "messages": list(loaded.warnings),
        }

    return prepare


def evaluation_messages(
    options: EvaluationNodeOptions[S], loaded: LoadedCriteria, state: S
) -> list[dict[str, str]]:
    """The judge's prompt for `state`, byte for byte as `ask_model` sends it: a call that
    starts with it (a refinement of what was judged) finds it in the server's prompt cache."""
    context = options.context_extractor(state) if options.context_extractor else ""
    return build_messages(
        loaded.criteria,
        extract_content(options, state),
        options.content_type,
        options.evaluation_prompt,
        context,
    )


async def ask_model(
    options: EvaluationNodeOptions[S],
    llm: LLMClient,
    loaded: LoadedCriteria,
    state: S,
) -> EvaluationAnswer:
    """Steps 4-5: build the prompt and call the model under the timeout."""
    context = options.context_extractor(state) if options.context_extractor else ""
    content = extract_content(options, state)
    messages = evaluation_messages(options, loaded, state)
    source = f"{content_text(content)}\n{context}"
    call = llm.structured(
        messages,
        grounded(EvaluationAnswer, lambda answer: degenerate_problems(answer, source)),
        role=options.model_role,
        json_schema=answer_schema(loaded.criteria, options.answer_limits),
        timeout_s=options.timeout_s,
    )
    try:
        return await asyncio.wait_for(call, options.timeout_s)
    except TimeoutError as exc:
        message = f"the model did not answer within {options.timeout_s:g} s"
        if options.reraise_unanswered:
            raise ModelTimeoutError(f"{options.model_role} model: {message}") from exc
        raise EvaluationFailure("timeout", message) from exc
    except StructuredOutputError as exc:
        detail = f"{exc.attempts} attempts; last: {'; '.join(exc.errors[-1:])}; raw: {exc.raw_text[:300]!r}"
        raise EvaluationFailure(
            "parse", "the model's answer could not be understood", detail
        ) from exc
    except LLMError as exc:
        if options.reraise_unanswered and not fallback_allowed(exc):
            raise
        if isinstance(exc, ContextBudgetError):
            raise EvaluationFailure(
                "context", "the content is too long for the model", str(exc)
            ) from exc
        raise EvaluationFailure(
            "model", "the model could not be reached or refused", explain(exc).line
        ) from exc


def criterion_results(
    criteria: EvaluationCriteria,
    answer: EvaluationAnswer,
    verdict: Verdict,
    silent: Collection[str] = (),
) -> list[CriterionResult]:
    """Per criterion: the model's score and reasons with code's verdict, in rubric order;
    `silent` criteria had a rationale with no words (left out, and said so)."""
    return [
        CriterionResult(
            id=c.id,
            name=c.name,
            score=answer.criteria[c.id].score,
            weight=c.weight,
            passing_threshold=c.passing_threshold,
            is_critical=c.is_critical,
            passed=verdict.criterion_passed[c.id],
            rationale=answer.criteria[c.id].rationale,
            issues=[Issue(what=i.what, where=i.where) for i in answer.criteria[c.id].issues],
            no_remark=c.id in silent,
        )
        for c in criteria.criteria
    ]


def build_result(
    options: EvaluationNodeOptions[S], loaded: LoadedCriteria, answer: EvaluationAnswer
) -> EvaluationResult:
    """Step 6: check the answer against the rubric and score it in code."""
    problems = answer_problems(answer, loaded.criteria)
    if problems:
        raise EvaluationFailure(
            "validation", "the model's answer does not match the rubric", "; ".join(problems)
        )
    raw = raw_answer(answer)  # the model's own words, for debugging
    answer, silent, notes = without_wordless(answer)
    criteria = loaded.criteria
    candidates = (options.passing_threshold, criteria.passing_threshold, options.default_threshold)
    threshold = next(t for t in candidates if t is not None)
    scores = {cid: answer.criteria[cid].score for cid in criteria.ids}
    try:
        verdict = score_criteria(criteria, scores, threshold)
    except ScoringError as exc:
        raise EvaluationFailure("scoring", "the scores could not be combined", str(exc)) from exc
    return EvaluationResult(
        passed=verdict.passed,
        evaluator="ai",
        overall_score=verdict.overall,
        scores=scores,
        strengths=answer.strengths,
        weaknesses=answer.weaknesses,
        suggestions=answer.suggestions,
        feedback=answer.feedback,
        raw_response=raw,
        criteria=criterion_results(criteria, answer, verdict, silent),
        criteria_id=criteria.id,
        criteria_version=criteria.version,
        passing_threshold=threshold,
        failed_critical=verdict.failed_critical,
        notes=notes,
    )


def apply_validator(options: EvaluationNodeOptions[S], result: EvaluationResult, state: S) -> None:
    """The custom validator's problems (or its crash) fail the evaluation."""
    if options.custom_validator is None:
        return
    try:
        problems = options.custom_validator(result, state) or []
    except Exception as exc:
        raise EvaluationFailure("validation", "the custom validator failed", repr(exc)) from exc
    if problems:
        raise EvaluationFailure("validation", "the result failed validation", "; ".join(problems))


def success_update(options: EvaluationNodeOptions[S], result: EvaluationResult, state: S) -> Update:
    """Step 7: the result, the status, the interrupt flag and metadata, a message."""
    label = human_readable(options.content_type)
    update: Update = {options.result_field: result.model_dump(mode="json")}
    if options.human_review:
        update[options.status_field] = "awaiting_review"
        update["is_interrupted"] = True
        update["interrupt_metadata"] = review_metadata(options, result, state)
        update["messages"] = [f"{label} evaluation {result.summary()}; waiting for your review."]
    else:
        update[options.status_field] = "approved" if result.passed else "revision_requested"
        update["is_interrupted"] = False
        update["interrupt_metadata"] = None
        update["messages"] = [f"{label} evaluation {result.summary()}."]
    return update


async def evaluate_content(
    llm: LLMClient | None, options: EvaluationNodeOptions[S], state: S
) -> EvaluationResult:
    """One whole evaluation without the node pattern: criteria, prompt, model, scoring, validator.

    For flows that judge inside their own node (several judges, tie-breaks); raises
    `EvaluationFailure` (kind, message, detail) on any failure. `state` is what the
    options' extractors read.
    """
    if llm is None:
        raise EvaluationFailure("configuration", "no model client in the run context")
    loaded = criteria_for(options)
    answer = await ask_model(options, llm, loaded, state)
    result = build_result(options, loaded, answer)
    apply_validator(options, result, state)
    if loaded.warnings:
        result = result.model_copy(update={"notes": [*loaded.warnings, *result.notes]})
    return result


def make_judge_node(base: EvaluationNodeOptions[S]) -> EvaluationNode[S]:
    """Steps 4-8: prompt, model, scoring, validation, state update."""

    async def judge(state: S, runtime: Runtime[FlowContext]) -> Update:
        options = base
        try:
            options = run_options(base, state, runtime)
            progress(
                stage="asking_model",
                content_type=options.content_type,
                message=f"asking the {options.model_role} model...",
            )
            llm = getattr(getattr(runtime, "context", None), "llm", None)
            result = await evaluate_content(llm, options, state)
        except EvaluationFailure as failure:
            return error_update(options, failure)
        except LLMError:  # only with `reraise_unanswered`: the run fails here, resuming asks again
            raise
        except Exception as exc:  # the last guard: report, never crash the run
            return error_update(
                options, EvaluationFailure("internal", "an unexpected error occurred", repr(exc))
            )
        progress(
            stage="scored",
            content_type=options.content_type,
            overall=result.overall_score,
            passed=result.passed,
            message=f"scored {result.overall_score:.2f}",
        )
        return success_update(options, result, state)

    return judge


def create_evaluation_node(options: EvaluationNodeOptions[S]) -> EvaluationNodes[S]:
    """The factory of spec 3.1: the nodes of one evaluation, ready for `add_evaluation`."""
    return EvaluationNodes(
        prepare=make_prepare_node(options),
        judge=make_judge_node(options),
        review=make_review_node(options),
        options=options,
    )
