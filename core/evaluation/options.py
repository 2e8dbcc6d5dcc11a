"""Options of an evaluation node (spec 003, 3.1) and the state fields every evaluation shares."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from core.evaluation.result import EvaluationResult

EvaluationStatus = Literal[
    "evaluating", "awaiting_review", "approved", "revision_requested", "edited", "error", "stale"
]
"""Values of an evaluation's status field (spec 5.1) plus `stale` for dependents of an edit."""

EvaluationNode = Callable[[Mapping[str, Any], Any], Awaitable[dict[str, Any]]]
"""A node of the framework: (state, LangGraph runtime) -> the state update."""
ContentExtractor = Callable[[Mapping[str, Any]], Any]
"""Reads the content to evaluate from the state; None or empty means nothing to evaluate."""
ResultValidator = Callable[[EvaluationResult, Mapping[str, Any]], "list[str] | None"]
"""Extra checks of a result; returns problems (an empty list or None when it is acceptable)."""
EditApplier = Callable[[Mapping[str, Any], Any], dict[str, Any]]
"""Turns the human's edited content into a state update."""

DEFAULT_THRESHOLD = 0.7
"""Overall threshold when neither the node option nor the criteria file sets one."""


class EvaluationFields(TypedDict, total=False):
    """State fields shared by every graph that contains an evaluation.

    A flow's state subclasses this and adds its own result field (an `EvaluationResult`
    dumped to a dict) and status field (an `EvaluationStatus`).
    """

    messages: Annotated[list[str], operator.add]
    """Plain-language messages for the user, appended by every node."""
    errors: Annotated[list[str], operator.add]
    """Error details (kind, content type, technical cause), appended on failure."""
    is_interrupted: bool
    """True while an evaluation waits for its human review."""
    interrupt_metadata: dict[str, Any] | None
    """What the review interrupt shows (spec 4.2)."""


@dataclass(frozen=True)
class EvaluationNodeOptions:
    """How one evaluation behaves. Everything but the first four fields has a default."""

    content_type: str
    """What is evaluated (`lesson`, `research`, ...); also the default criteria name."""
    content_extractor: ContentExtractor
    """Reads the content from the state."""
    result_field: str
    """State field that receives the `EvaluationResult` (as a dict)."""
    status_field: str
    """State field that receives the `EvaluationStatus`."""
    criteria_path: str | Path | None = None
    """A criteria file path or name; None means `content_type`. Missing -> default criteria."""
    evaluation_prompt: str | None = None
    """Overrides the system instructions (`{content_type}`, `{begin}`, `{end}` are filled)."""
    passing_threshold: float | None = None
    """Overall threshold; None means the criteria file's, else 0.7."""
    model_role: str = "judge"
    """Model role of the evaluation call."""
    custom_validator: ResultValidator | None = None
    """Extra checks of the scored result; problems make the evaluation fail with `error`."""
    human_review: bool = True
    """Stop for a human review; False for automatic judges (status approved or revision_requested)."""
    timeout_s: float = 60.0
    """Total time the model call may take, re-asks included."""
    context_extractor: Callable[[Mapping[str, Any]], str] | None = None
    """Trusted reference material for the evaluator (e.g. the source concepts of a lesson)."""
    content_field: str | None = None
    """State field that an `edit` replaces with the human's content (when no `apply_edit`)."""
    apply_edit: EditApplier | None = None
    """Custom way of applying the human's edit; takes precedence over `content_field`."""
    dependents: tuple[str, ...] = ()
    """Status fields of content derived from this one; an edit marks them `stale`."""
    decision_field: str | None = None
    """State field that receives the human's decision (action, feedback, content)."""
    criteria_dirs: tuple[Path, ...] = ()
    """Directories searched for criteria files before the shipped ones."""
    payload_extras: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    """Extra data for the review interrupt payload (e.g. the note path)."""
    default_threshold: float = DEFAULT_THRESHOLD
    """Overall threshold when neither `passing_threshold` nor the criteria file sets one."""
    reraise_unanswered: bool = False
    """When the model did not answer (timeout, connection, server error, missing model),
    raise instead of setting status `error`: the run then fails at the judge node and resuming
    it asks again. An answer that stays invalid after re-asks, or a prompt over the context
    budget, still becomes status `error` (`core.model_failures`; the flow's `on_error` decides
    what stands in)."""
    configure: Callable[[Mapping[str, Any], Any], dict[str, Any]] | None = None
    """Per-run option overrides from the state and the LangGraph runtime, e.g. a criteria
    file chosen by the user or a timeout from settings: `(state, runtime) -> {field: value}`."""

    def __post_init__(self) -> None:
        if self.passing_threshold is not None and not 0 <= self.passing_threshold <= 1:
            raise ValueError(f"passing_threshold {self.passing_threshold} outside 0..1")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if not self.result_field or not self.status_field:
            raise ValueError("result_field and status_field are required")

    def for_run(self, state: Mapping[str, Any], runtime: Any) -> EvaluationNodeOptions:
        """These options with the run's overrides applied (itself without `configure`)."""
        if self.configure is None:
            return self
        changes = dict(self.configure(state, runtime) or {})
        changes.pop("configure", None)
        return dataclasses.replace(self, **changes)

    @property
    def criteria_ref(self) -> str | Path:
        """The criteria reference to load."""
        return self.criteria_path or self.content_type

    @property
    def can_edit(self) -> bool:
        """Whether an `edit` decision can be applied."""
        return self.apply_edit is not None or self.content_field is not None

    @property
    def actions(self) -> list[str]:
        """The review actions offered."""
        return ["approve", "revise", "edit"] if self.can_edit else ["approve", "revise"]
