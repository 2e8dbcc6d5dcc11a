"""State of a tutoring session: spec 004's `SimplifiedState`, plus the closing summary.

The study plan's step statuses are the source of truth: the current step is derived from them
(`core.flows.tutor.plan.current_step`) and mastery is computed from them by code. The
conversation and the agent logs are append-only (reducers), so a session's thread in the
checkpointer holds its whole history. The pydantic models below describe the dicts the state
holds (the checkpointer stores plain JSON-like values); `validate_state` checks a state with them.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from core.flows.tutor.agents import Agent

StepStatus = Literal["pending", "in_progress", "completed", "blocked"]
Role = Literal["tutor", "student"]
MessageKind = Literal["teaching", "feedback", "redirect", "answer", "closing"]
Outcome = Literal["", "completed", "needs_another_approach"]


class StatusInfo(BaseModel):
    """Counters of one step, kept by code from the evaluations."""

    questions_asked: int = Field(0, ge=0)
    questions_correct: int = Field(0, ge=0)
    attempts: int = Field(0, ge=0)


class PlanStep(BaseModel):
    """One step of the study plan."""

    step_id: str
    title: str
    description: str
    teaching_approach: str
    success_criteria: str
    status: StepStatus = "pending"
    status_info: StatusInfo = Field(default_factory=StatusInfo)


class PlanMetadata(BaseModel):
    """Versioning of the plan."""

    plan_version: int = Field(1, ge=1)
    replan_count: int = Field(0, ge=0)
    max_replans: int = Field(3, ge=0)


class StudyPlan(BaseModel):
    """The plan: its steps (with statuses) and metadata."""

    todo_list: list[PlanStep] = Field(default_factory=list)
    metadata: PlanMetadata = Field(default_factory=PlanMetadata)


class Message(BaseModel):
    """One message of the conversation."""

    role: Role
    content: str
    timestamp: str
    kind: MessageKind = "teaching"
    hints: list[str] = Field(default_factory=list)
    """Hints the learner may reveal (tutor questions only)."""
    step_id: str = ""
    """The plan step the message belongs to."""


class AgentLog(BaseModel):
    """One agent step (spec: timestamp, agent, input summary, output, reasoning, duration)."""

    timestamp: str
    agent: Agent
    input_summary: str
    output: dict[str, object]
    reasoning: str = ""
    duration_ms: float = Field(ge=0)


class LastEvaluation(BaseModel):
    """What the evaluator decided about the latest student message."""

    score: float = Field(ge=0, le=1)
    feedback: str
    reasoning: str
    correct: bool
    step_id: str
    step_status: StepStatus
    was_off_topic: bool = False
    replan_needed: bool = False
    replan_reason: str | None = None


class Summary(BaseModel):
    """The end of a session (shown, and saved as a note)."""

    steps_completed: int = Field(ge=0)
    steps_total: int = Field(ge=0)
    mastery_score: float = Field(ge=0, le=1)
    misconceptions_seen: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    outcome: Outcome
    note_path: str = ""


class ConceptRef(BaseModel):
    """A concept note the session teaches (for mastery across sessions)."""

    id: str
    title: str


class TopicInfo(BaseModel):
    """What is being taught."""

    title: str = Field(min_length=1)
    source: Literal["curriculum", "concept"] = "curriculum"
    subject: str = ""
    topic: str = ""
    subtopic: str = ""
    grade: str = ""
    objectives: list[str] = Field(default_factory=list)
    concepts: list[ConceptRef] = Field(default_factory=list)
    path: str = ""
    """Vault path of the curriculum or concept note the guideline came from."""


class TutorInput(BaseModel):
    """What a session is started with."""

    guidelines: str = Field(min_length=1)
    """The teaching guideline (a curriculum note's body, or built from a concept note)."""
    topic_info: TopicInfo
    student_profile: dict[str, object] = Field(default_factory=dict)
    """The learner profile (settings.flows.tutor.learner) at the session's start."""
    session_context: dict[str, object] = Field(default_factory=dict)
    """Free context, e.g. `estimated_duration_minutes`."""


# -- the same records as the state holds them (plain data; the models above validate them) --


class StatusInfoData(TypedDict, total=False):
    questions_asked: int
    questions_correct: int
    attempts: int


class PlanStepData(TypedDict, total=False):
    """A `PlanStep` as data."""

    step_id: str
    title: str
    description: str
    teaching_approach: str
    success_criteria: str
    status: StepStatus
    status_info: StatusInfoData


class PlanMetadataData(TypedDict, total=False):
    plan_version: int
    replan_count: int
    max_replans: int


class StudyPlanData(TypedDict, total=False):
    """A `StudyPlan` as data."""

    todo_list: list[PlanStepData]
    metadata: PlanMetadataData


class MessageData(TypedDict, total=False):
    """A `Message` as data; `stopped` marks a tutor message the learner stopped mid-stream."""

    role: Role
    content: str
    timestamp: str
    kind: MessageKind
    hints: list[str]
    step_id: str
    stopped: bool


class AgentLogData(TypedDict, total=False):
    """An `AgentLog` as data."""

    timestamp: str
    agent: Agent
    input_summary: str
    output: dict[str, object]
    reasoning: str
    duration_ms: float


class LastEvaluationData(TypedDict, total=False):
    """A `LastEvaluation` as data, with what code decided about it: `overridden` (why code did
    not let a correct score stand, '' when it did) or `not_evaluated` (why there is no score)."""

    score: float
    feedback: str
    reasoning: str
    correct: bool
    step_id: str
    step_status: StepStatus
    was_off_topic: bool
    replan_needed: bool
    replan_reason: str | None
    overridden: str
    not_evaluated: str


class SummaryData(TypedDict, total=False):
    """A `Summary` as data."""

    steps_completed: int
    steps_total: int
    mastery_score: float
    misconceptions_seen: list[str]
    suggestions: list[str]
    outcome: str
    """An `Outcome`, or `in_progress` for the summary of a session that goes on (an export)."""
    note_path: str


class ConceptRefData(TypedDict):
    id: str
    title: str


class TopicInfoData(TypedDict, total=False):
    """A `TopicInfo` as data."""

    title: str
    source: Literal["curriculum", "concept"]
    subject: str
    topic: str
    subtopic: str
    grade: str
    objectives: list[str]
    concepts: list[ConceptRefData]
    path: str


class ProfileData(TypedDict, total=False):
    """The learner profile (`core.settings.flows.LearnerProfile` as data)."""

    name: str
    grade: str
    preferred_style: str
    language: str
    interests: list[str]


class SimplifiedState(TypedDict, total=False):
    """The full state of one tutoring session (spec 004)."""

    session_id: str
    """The session id (= run id = thread id)."""
    created_at: str
    """When the session started (ISO 8601, UTC)."""
    last_updated_at: str
    """When an agent last changed the state."""
    guidelines: str
    """Teaching guideline (input, immutable)."""
    student_profile: ProfileData
    """Learner profile: name, grade, preferred style, language, interests (input, immutable)."""
    topic_info: TopicInfoData
    """A `TopicInfo` as a dict (input, immutable)."""
    session_context: dict[str, object]
    """Free session context (input, immutable)."""
    study_plan: StudyPlanData
    """A `StudyPlan` as a dict: the SOURCE OF TRUTH of progress (step statuses)."""
    assessment_notes: str
    """Accumulated plain-text observations of the evaluator (one line per evaluation)."""
    conversation: Annotated[list[MessageData], operator.add]
    """Append-only `Message` dicts."""
    replan_needed: bool
    """The evaluator asked for a new plan."""
    replan_reason: str | None
    """Why (None when no replan is pending)."""
    agent_logs: Annotated[list[AgentLogData], operator.add]
    """Append-only `AgentLog` dicts."""
    last_evaluation: LastEvaluationData
    """The latest `LastEvaluation` as a dict."""
    misconceptions: Annotated[list[str], operator.add]
    """Misconceptions the evaluator noticed (append-only)."""
    mastery: float
    """Mastery computed by code from the step statuses (0-1)."""
    is_complete: bool
    """The session has ended."""
    outcome: Outcome
    """How it ended: all steps completed, or the replan limit was reached."""
    summary: SummaryData
    """The closing `Summary` as a dict."""


def validate_state(state: SimplifiedState) -> None:
    """Raise pydantic's ValidationError if any structured part of a state is malformed."""
    if state.get("study_plan"):
        StudyPlan.model_validate(state["study_plan"])
    for message in state.get("conversation", []):
        Message.model_validate(message)
    for log in state.get("agent_logs", []):
        AgentLog.model_validate(log)
    if state.get("last_evaluation"):
        LastEvaluation.model_validate(state["last_evaluation"])
    if state.get("summary"):
        Summary.model_validate(state["summary"])
    if "topic_info" in state:
        TopicInfo.model_validate(state["topic_info"])
