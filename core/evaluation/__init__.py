"""The standard evaluation framework (spec 003): rubrics, scoring in code, evaluation nodes.

    options = EvaluationNodeOptions(content_type="lesson", content_extractor=lambda s: s["lesson"],
                                    result_field="lesson_evaluation", status_field="lesson_status")
    entry = add_evaluation(graph, "evaluate_lesson", options,
                           on_continue="save_lesson", on_revise="generate_lesson")

See `node` for the three nodes (prepare, judge, review) and `graph` for the wiring.
"""

from core.evaluation.answer import COMPACT_ANSWER, FULL_ANSWER, AnswerLimits
from core.evaluation.graph import add_evaluation, evaluation_route, route_after_evaluation
from core.evaluation.loader import (
    BUILTIN_DIR,
    CriteriaError,
    Criterion,
    EvaluationCriteria,
    LoadedCriteria,
    ScoringGuidelines,
    available_criteria,
    load_criteria,
    load_criteria_file,
    resolve_criteria_path,
    validate_criteria_files,
)
from core.evaluation.node import (
    EvaluationFailure,
    EvaluationNodes,
    create_evaluation_node,
    evaluate_content,
    evaluation_messages,
)
from core.evaluation.options import (
    EvaluationFields,
    EvaluationNodeOptions,
    EvaluationStatus,
)
from core.evaluation.result import CriterionResult, EvaluationResult, EvaluationResultData, Issue
from core.evaluation.review import EvaluationReview, ReviewDecision
from core.evaluation.scoring import ScoringError, Verdict, score_criteria, weighted_mean

__all__ = [
    "COMPACT_ANSWER",
    "FULL_ANSWER",
    "AnswerLimits",
    "BUILTIN_DIR",
    "CriteriaError",
    "Criterion",
    "CriterionResult",
    "EvaluationCriteria",
    "EvaluationFailure",
    "EvaluationFields",
    "EvaluationNodeOptions",
    "EvaluationNodes",
    "EvaluationResult",
    "EvaluationResultData",
    "EvaluationReview",
    "EvaluationStatus",
    "Issue",
    "LoadedCriteria",
    "ReviewDecision",
    "ScoringError",
    "ScoringGuidelines",
    "Verdict",
    "add_evaluation",
    "available_criteria",
    "create_evaluation_node",
    "evaluate_content",
    "evaluation_messages",
    "evaluation_route",
    "load_criteria",
    "load_criteria_file",
    "resolve_criteria_path",
    "route_after_evaluation",
    "score_criteria",
    "validate_criteria_files",
    "weighted_mean",
]
