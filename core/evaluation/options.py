"""Options of an evaluation node (spec 003, 3.1) and the state fields every evaluation shares."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, ClassVar, Generic, Literal, Protocol, TypeVar

from typing_extensions import TypedDict

from core.evaluation.answer import FULL_ANSWER, AnswerLimits
from core.evaluation.result import EvaluationResult

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

    from core.context import FlowContext

EvaluationStatus = Literal[
    "evaluating", "awaiting_review", "approved", "revision_requested", "edited", "error", "stale"
]
"""Values of an evaluation's status field (spec 5.1) plus `stale` for dependents of an edit."""


class TypedState(Protocol):
    """A flow's state (a TypedDict) as the framework reads it, by the field names its options
    give, and as LangGraph takes it (a TypedDict-like state schema)."""

    __required_keys__: ClassVar[frozenset[str]]
    __optional_keys__: ClassVar[frozenset[str]]

    def __getitem__(self, key: str, /) -> object: ...
    def get(self, key: str, /) -> object: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...


S = TypeVar("S", bound=TypedState)
"""The state of the graph an evaluation runs in; the flow's callbacks read it as their own."""
S_contra = TypeVar("S_contra", bound=TypedState, contravariant=True)
Update = dict[str, object]
"""A state update of the framework: its fields are named by the options (`result_field`...)."""


class EvaluationNode(Protocol[S_contra]):
    """A node of the framework: (state, LangGraph runtime) -> the state update."""

    def __call__(self, state: S_contra, runtime: Runtime[FlowContext]) -> Awaitable[Update]: ...


ContentExtractor = Callable[[S], object]
"""Reads the content to evaluate from the state; None or empty means nothing to evaluate."""
ResultValidator = Callable[[EvaluationResult, S], "list[str] | None"]
"""Extra checks of a result; returns problems (an empty list or None when it is acceptable)."""
EditApplier = Callable[[S, object], Update]
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
    interrupt_metadata: dict[str, object] | None
    """What the review interrupt shows (spec 4.2)."""


class OptionChanges(TypedDict, Generic[S], total=False):
    """What a flow's `configure` may set for one run (fields of `EvaluationNodeOptions`)."""

    criteria_path: str | Path | None
    evaluation_prompt: str | None
    passing_threshold: float | None
    model_role: str
    timeout_s: float
    context_extractor: Callable[[S], str] | None
    criteria_dirs: tuple[Path, ...]
    default_threshold: float
    answer_limits: AnswerLimits


@dataclass(frozen=True)
class EvaluationNodeOptions(Generic[S]):
    """How one evaluation behaves. Everything but the first four fields has a default."""

    content_type: str
    """What is evaluated (`lesson`, `research`, ...); also the default criteria name."""
    content_extractor: ContentExtractor[S]
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
    custom_validator: ResultValidator[S] | None = None
    """Extra checks of the scored result; problems make the evaluation fail with `error`."""
    human_review: bool = True
    """Stop for a human review; False for automatic judges (status approved or revision_requested)."""
    timeout_s: float = 60.0
    """Total time the model call may take, re-asks included."""
    context_extractor: Callable[[S], str] | None = None
    """Trusted reference material for the evaluator (e.g. the source concepts of a lesson)."""
    content_field: str | None = None
    """State field that an `edit` replaces with the human's content (when no `apply_edit`)."""
    apply_edit: EditApplier[S] | None = None
    """Custom way of applying the human's edit; takes precedence over `content_field`."""
    dependents: tuple[str, ...] = ()
    """Status fields of content derived from this one; an edit marks them `stale`."""
    decision_field: str | None = None
    """State field that receives the human's decision (action, feedback, content)."""
    criteria_dirs: tuple[Path, ...] = ()
    """Directories searched for criteria files before the shipped ones."""
    payload_extras: Callable[[S], dict[str, object]] | None = None
    """Extra data for the review interrupt payload (e.g. the note path)."""
    default_threshold: float = DEFAULT_THRESHOLD
    """Overall threshold when neither `passing_threshold` nor the criteria file sets one."""
    reraise_unanswered: bool = False
    """When the model did not answer (timeout, connection, server error, missing model),
    raise instead of setting status `error`: the run then fails at the judge node and resuming
    it asks again. An answer that stays invalid after re-asks, or a prompt over the context
    budget, still becomes status `error` (`core.model_failures`; the flow's `on_error` decides
    what stands in)."""
    answer_limits: AnswerLimits = FULL_ANSWER
    """How long the model's answer may be (`COMPACT_ANSWER` for a judge whose answer only
    code and a refinement read)."""
    configure: Callable[[S, Runtime[FlowContext]], OptionChanges[S]] | None = None
    """Per-run option overrides from the state and the LangGraph runtime, e.g. a criteria
    file chosen by the user or a timeout from settings: `(state, runtime) -> {field: value}`."""

    def __post_init__(self) -> None:
        if self.passing_threshold is not None and not 0 <= self.passing_threshold <= 1:
            raise ValueError(f"passing_threshold {self.passing_threshold} outside 0..1")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if not self.result_field or not self.status_field:
            raise ValueError("result_field and status_field are required")

    def for_run(self, state: S, runtime: Runtime[FlowContext]) -> EvaluationNodeOptions[S]:
        """These options with the run's overrides applied (itself without `configure`)."""
        if self.configure is None:
            return self
        changes = self.configure(state, runtime) or {}
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
