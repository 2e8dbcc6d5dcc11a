"""The typed contract of a human review: what an interrupt shows and what the human answers.

A flow's review node builds its `Review` model and puts `review.payload()` (plain JSON data)
into `interrupt()`, so checkpoints hold plain data; a front end reads the payload back with
`TheReview.model_validate(payload)`. The answer is the flow's `Decision` model: the runtime
validates it with `Decision.parse` before it resumes the run (`core.runtime.Runtime.resume`),
so a malformed answer is an `InvalidDecision` with one line saying what is wrong, and the run
keeps waiting at its review.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator


class InvalidDecision(ValueError):
    """A review answer that does not fit the review's decision model (the message is one line)."""


class Review(BaseModel):
    """What an interrupt shows: `type` names the review (`extraction_review`, ...)."""

    model_config = ConfigDict(extra="ignore")  # a payload checkpointed by an older version

    type: str
    """Which review this is; the runtime picks the decision model by it."""
    actions: list[str] = []
    """The answers the reviewer can give now."""

    def payload(self) -> dict[str, object]:
        """The review as plain JSON data: what goes into `interrupt()` and the checkpoint."""
        return self.model_dump(mode="json")


class Decision(BaseModel):
    """What the human answers to a review; subclasses narrow `action` to their choices."""

    model_config = ConfigDict(extra="forbid")

    action: str
    """The chosen answer (a bare string answer is read as the action)."""

    @field_validator("action", mode="before")
    @classmethod
    def _normalized(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @classmethod
    def parse(cls, value: object) -> Self:
        """`value` (a decision, a dict of one, or an action string) as this model;
        `InvalidDecision` (one line) when it does not fit."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            value = {"action": value}
        try:
            return cls.model_validate(value)
        except ValidationError as exc:
            raise InvalidDecision(
                f"invalid review answer {_shown(value)}: {_first_error(exc)}"
            ) from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {message}{more}" if where else f"{message}{more}"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
