"""What the model answers for an evaluation, and the bounded schema it answers under.

The model returns a score, a rationale and concrete issues per criterion, plus strengths,
weaknesses, suggestions and a short feedback. It never returns the overall score or the
verdict: those are computed by `scoring`.

The schema is built per rubric: `criteria` is an object with exactly one required property
per criterion id (rationale first, so the model reasons before it scores), so a
grammar-constrained model can neither skip a criterion, repeat one, nor invent an id. Every
string and list is bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from core.degenerate import (
    field_names_as_values,
    fold,
    looping,
    placeholders,
    quotes_not_in,
    repeated_sentence,
    wordless,
)
from core.evaluation.loader import EvaluationCriteria
from local_llm.schema import JsonSchema, bounded_schema

# Bounds keep answers short: small local models tend to fill every string to its limit, and
# output tokens dominate an evaluation's latency on a CPU.
MAX_RATIONALE = 300
MAX_ISSUES = 3
MAX_ISSUE_TEXT = 160
MAX_WHERE = 80
MAX_LIST_ITEMS = 3
MAX_ITEM_TEXT = 160
MAX_FEEDBACK = 400


class IssueAnswer(BaseModel):
    """One problem the model found."""

    what: str = Field(max_length=MAX_ISSUE_TEXT)
    """What is wrong."""
    where: str = Field(default="", max_length=MAX_WHERE)
    """Where: a heading, a short quoted phrase, or an item id."""


class CriterionAnswer(BaseModel):
    """The model's judgement on one criterion."""

    rationale: str = Field(max_length=MAX_RATIONALE)
    """Why this score, referring to the scoring guidelines."""
    issues: list[IssueAnswer] = Field(default_factory=list, max_length=MAX_ISSUES)
    """Concrete problems for this criterion (empty when none)."""
    score: float = Field(ge=0, le=1)
    """Score between 0 and 1."""


class EvaluationAnswer(BaseModel):
    """The model's whole answer."""

    criteria: dict[str, CriterionAnswer]
    """One entry per criterion id of the rubric."""
    strengths: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """What the content does well."""
    weaknesses: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """Areas for improvement."""
    suggestions: list[str] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    """Specific, actionable improvements."""
    feedback: str = Field(default="", max_length=MAX_FEEDBACK)
    """Overall assessment in two or three sentences."""


@dataclass(frozen=True)
class AnswerLimits:
    """How long each part of an answer may be (within the model's own maxima above)."""

    rationale: int = MAX_RATIONALE
    issues: int = MAX_ISSUES
    issue_text: int = MAX_ISSUE_TEXT
    where: int = MAX_WHERE
    list_items: int = MAX_LIST_ITEMS
    item_text: int = MAX_ITEM_TEXT
    feedback: int = MAX_FEEDBACK
    where_choices: tuple[str, ...] = ()
    """When given, an issue's `where` is one of these ids (or empty) instead of free text."""


FULL_ANSWER = AnswerLimits()
"""The answer a person reads (the rubric review, lessons)."""

COMPACT_ANSWER = AnswerLimits(
    rationale=40, issues=1, issue_text=60, where=30, list_items=1, item_text=60, feedback=80
)
"""An automatic judge's answer, read by code and by a refinement: a short reason and at most
one issue per criterion, one remark per list. On a CPU a generated token costs as much as
ten read ones, and a small model writes its strings out to their limit: Gemma 3 270M's
critiques of the extraction bench took 375-477 tokens with the full answer and 463 with
twice these lengths (the JSON's own keys are about 140 of them)."""


def answer_schema(criteria: EvaluationCriteria, limits: AnswerLimits = FULL_ANSWER) -> JsonSchema:
    """The bounded JSON schema of `EvaluationAnswer` for this rubric."""
    where = {} if limits.where_choices else {"where": limits.where}
    item_schema = bounded_schema(
        CriterionAnswer,
        enums={"where": ["", *limits.where_choices]} if limits.where_choices else None,
        max_length={"rationale": limits.rationale, "what": limits.issue_text, **where},
        max_items={"issues": limits.issues},
    )
    lists = ("strengths", "weaknesses", "suggestions")
    schema = bounded_schema(
        EvaluationAnswer,
        max_length={**dict.fromkeys(lists, limits.item_text), "feedback": limits.feedback},
        max_items=dict.fromkeys(lists, limits.list_items),
    )
    schema["properties"]["criteria"] = {
        "type": "object",
        "properties": {cid: item_schema for cid in criteria.ids},
        "required": list(criteria.ids),
        "additionalProperties": False,
    }
    return schema


def answer_problems(answer: EvaluationAnswer, criteria: EvaluationCriteria) -> list[str]:
    """Ways the answer does not fit the rubric (a model that ignored the schema)."""
    ids = set(criteria.ids)
    problems = [f"missing criterion {cid!r}" for cid in criteria.ids if cid not in answer.criteria]
    problems += [f"unknown criterion {cid!r}" for cid in answer.criteria if cid not in ids]
    return problems


FIELD_NAMES = (
    "rationale",
    "issues",
    "what",
    "where",
    "score",
    "strengths",
    "weaknesses",
    "suggestions",
    "feedback",
    "criteria",
)


def degenerate_problems(answer: EvaluationAnswer, source: str) -> list[str]:
    """Visibly broken remarks (`core.degenerate`): field names or template slots as values,
    a quoted phrase that is not in `source` (the content and the reference material), one
    remark (of four words or more) copied into every criterion, a repeated sentence."""
    problems = []
    for cid, item in answer.criteria.items():
        fields = {"rationale": item.rationale}
        fields |= {f"issue {n} what": i.what for n, i in enumerate(item.issues, 1)}
        fields |= {f"issue {n} where": i.where for n, i in enumerate(item.issues, 1)}
        bad = field_names_as_values(fields, FIELD_NAMES) + placeholders(fields)
        problems += [f"{cid}: {field} is not a remark" for field in dict.fromkeys(bad)]
        missing = [q for text in fields.values() for q in quotes_not_in(text, source)]
        problems += [f"{cid}: quotes {q!r}, which is not in the content" for q in missing[:2]]
    rationales = [fold(c.rationale) for c in answer.criteria.values()]
    if len(rationales) >= 3 and len(set(rationales)) == 1 and len(rationales[0].split()) >= 4:
        problems.append("every criterion has the same rationale; judge each one on its own")
    if repeated := repeated_sentence(answer.feedback):
        problems.append(f"the feedback repeats {repeated[:60]!r}")
    return problems + _loops(answer)


def _loops(answer: EvaluationAnswer) -> list[str]:
    """Remarks that are one fragment said over and over (`100% (100% (100% (`)."""
    remarks = {f"{cid}: rationale": c.rationale for cid, c in answer.criteria.items()}
    for field in ("strengths", "weaknesses", "suggestions"):
        remarks |= {f"{field} {n}": text for n, text in enumerate(getattr(answer, field), 1)}
    remarks["feedback"] = answer.feedback
    return [
        f"{name} repeats {loop!r} over and over"
        for name, text in remarks.items()
        if (loop := looping(text))
    ]


NO_REMARK = "the model gave no usable remark for this criterion"
"""Said where a criterion's rationale had no words (the score stands)."""


def _says_nothing(text: str, names: tuple[str, ...]) -> bool:
    """No words (`=0.0`, `${},`), or the schema's names around numbers and nothing else
    (`accuracy: 0.0, issues: 0`: the answer's JSON retold)."""
    if wordless(text):
        return True
    words = " ".join(re.findall(r"[^\W\d_]{2,}", text))
    retold = re.search(r"\d", text) and field_names_as_values({"remark": words}, names)
    return bool(retold)


def without_wordless(answer: EvaluationAnswer) -> tuple[EvaluationAnswer, set[str], list[str]]:
    """The answer with its remarks that say nothing (`_says_nothing`) left out, the scores
    kept; the criteria whose rationale went, and one note naming the other remarks that
    went. A small model writes such remarks most of the time, so re-asking for them ends the
    run instead (tried in the issue-12 walk): they are dropped, and said so."""
    names = (*FIELD_NAMES, *answer.criteria)

    def wordless(text: str) -> bool:
        return _says_nothing(text, names)

    silent = {cid for cid, c in answer.criteria.items() if wordless(c.rationale)}
    criteria = {
        cid: c.model_copy(
            update={
                "rationale": "" if cid in silent else c.rationale,
                "issues": [i for i in c.issues if not wordless(i.what)],
            }
        )
        for cid, c in answer.criteria.items()
    }
    update: dict[str, Any] = {"criteria": criteria}
    gone = []
    for field in ("strengths", "weaknesses", "suggestions"):
        kept = [text for text in getattr(answer, field) if not wordless(text)]
        if len(kept) < len(getattr(answer, field)):
            update[field] = kept
            gone.append(field)
    if wordless(answer.feedback):
        update["feedback"] = ""
        gone.append("feedback")
    named = " and ".join([", ".join(gone[:-1]), gone[-1]] if len(gone) > 1 else gone)
    verb = "was" if gone == ["feedback"] else "were"
    notes = [f"the model's {named} had no words and {verb} left out"] if gone else []
    return answer.model_copy(update=update), silent, notes


def raw_answer(answer: EvaluationAnswer) -> dict[str, object]:
    """The answer as plain data, kept as `raw_response` for debugging."""
    return answer.model_dump(mode="json")
