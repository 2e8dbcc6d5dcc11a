"""One rule for every workflow when a model call fails: tell the truth, never a quiet default.

- The model answered, but never validly after the client's re-asks (`StructuredOutputError`),
  or the prompt cannot fit its context (`ContextBudgetError`, `ContextWindowError`): asking
  again would fail the
  same way, so a deterministic fallback may stand in for the answer, and the step records what
  it skipped (`skipped_entry`) so that the review screen and the CLI report show it first.
- Anything else (connection refused or reset, timeout, HTTP 5xx/429 after the client's
  retries, a missing model, a refused key): the model did not answer, nothing is known about
  the answer, so no fallback may stand in for it. The step re-raises, the run fails AT THAT
  STEP (LangGraph keeps what the steps before it produced), and resuming the run redoes the
  step once the model answers again.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from core.problems import explain
from local_llm.errors import ContextBudgetError, ContextWindowError, StructuredOutputError


def fallback_allowed(exc: BaseException) -> bool:
    """Whether a fallback may stand in for the failed call's answer (see the module docstring)."""
    return isinstance(exc, StructuredOutputError | ContextBudgetError | ContextWindowError)


def raise_unless_fallback(exc: BaseException) -> None:
    """Re-raise a failure that must fail the run at this step; return for an invalid answer."""
    if not fallback_allowed(exc):
        raise exc


def why(exc: BaseException) -> str:
    """The failure in words a reader of the review understands (what failed, the limit hit:
    `core.problems.explain`)."""
    return explain(exc).summary


class SkippedWork(BaseModel):
    """A `skipped_entry` as a model (how reviews show it)."""

    step: str = ""
    what: str = ""
    why: str = ""
    fallback: str = ""


def skipped_entry(step: str, what: str, exc: BaseException, fallback: str) -> dict[str, str]:
    """A record of work a fallback replaced: the step, what was skipped, why, what stands in."""
    return {"step": step, "what": what, "why": why(exc), "fallback": fallback}


def skipped_line(entry: Mapping[str, object]) -> str:
    """One line for a report: `1.1b duplicate detection of 'X': <why>; <fallback>`."""
    return f"[{entry.get('step', '')}] {entry.get('what', '')}: {entry.get('why', '')}; " + str(
        entry.get("fallback", "")
    )
