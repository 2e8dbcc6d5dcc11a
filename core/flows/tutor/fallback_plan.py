"""A plan code builds when the planner's model gave no usable plan (issue 12).

Gemma 3 270M, the bundled model, often answers the planner with the schema's field names as
values ("title", "description"...) on every re-ask. The client rejects such answers
(`StructuredOutputError`); instead of failing the session before it starts, the tutor teaches
from a short plan built from what the session knows: its concepts (else its title). The
learner and the log are told. A model that did not answer at all still fails the turn
(`core.model_failures`).

On a replan, an unusable answer keeps the current plan: its blocked steps are opened again, so
the session goes on, and the replan still counts against `max_replans`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from core.degenerate import fold
from core.flows.tutor import plan as p
from core.flows.tutor.prompts import LENGTHS, LISTS, MAX_STEPS, PlanDraft
from core.flows.tutor.state import StudyPlanData, TopicInfoData

NOTICE = "The model's plan was unusable: a plan built from the concept."
"""What the learner reads (the planner's progress message) when the fallback plan stands in."""

REPLAN_NOTICE = "The model's new plan was unusable: the current plan goes on."

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "recall": "Recall: {c}",
        "recall_d": "Say what you already know about {c}.",
        "recall_a": "questions about what {c} is",
        "recall_s": "states what {c} is",
        "explain": "Explain: {c}",
        "explain_d": "Explain {c} in your own words.",
        "explain_a": "the learner explains, the tutor corrects",
        "explain_s": "explains {c} correctly in own words",
        "apply": "Apply: {c}",
        "apply_d": "Apply {c} to a concrete example.",
        "apply_a": "a worked example, then a new one",
        "apply_s": "applies {c} to a new example",
        "both": "Apply both together",
        "both_d": "Use {c} together in one example.",
        "both_a": "one example that needs both",
        "both_s": "applies {c} together correctly",
    },
    "es": {
        "recall": "Recordar: {c}",
        "recall_d": "Di lo que ya sabes sobre {c}.",
        "recall_a": "preguntas sobre qué es {c}",
        "recall_s": "dice qué es {c}",
        "explain": "Explicar: {c}",
        "explain_d": "Explica {c} con tus propias palabras.",
        "explain_a": "el estudiante explica, el tutor corrige",
        "explain_s": "explica {c} bien con sus palabras",
        "apply": "Aplicar: {c}",
        "apply_d": "Aplica {c} a un ejemplo concreto.",
        "apply_a": "un ejemplo resuelto y luego uno nuevo",
        "apply_s": "aplica {c} a un ejemplo nuevo",
        "both": "Aplicar ambos juntos",
        "both_d": "Usa {c} juntos en un ejemplo.",
        "both_a": "un ejemplo que necesita ambos",
        "both_s": "aplica {c} juntos bien",
    },
}
"""Step texts by the learner's language (the planner prompt's `language`); others get English."""


def concept_titles(info: TopicInfoData) -> list[str]:
    """The titles the plan is built from: the session's concepts, else its own title."""
    titles = [c.get("title", "").strip() for c in info.get("concepts") or []]
    titles = list(dict.fromkeys(t for t in titles if t))
    return titles or [str(info.get("title", "")).strip() or "?"]


def step_texts(words: Mapping[str, str], kind: str, concept: str) -> list[str]:
    """(title, description, approach, criteria) of one step, each cut to the schema's length."""
    texts = [
        words[kind].format(c=concept),
        words[f"{kind}_d"].format(c=concept),
        words[f"{kind}_a"].format(c=concept),
        words[f"{kind}_s"].format(c=concept),
    ]
    limits = [
        LENGTHS[name]
        for name in ("titles", "descriptions", "teaching_approaches", "success_criteria")
    ]
    return [
        text if len(text) <= limit else text[: limit - 1] + "…"
        for text, limit in zip(texts, limits, strict=True)
    ]


def fallback_draft(info: TopicInfoData, language: str) -> PlanDraft:
    """3-4 steps: recall, explain and apply one concept; with several, explain each (`MAX_STEPS`
    at most) and, for two, apply them together."""
    words = PHRASES.get(language.split("-")[0].lower(), PHRASES["en"])
    concepts = [title[:40] for title in concept_titles(info)]
    if len(concepts) == 1:
        rows = [step_texts(words, kind, concepts[0]) for kind in ("recall", "explain", "apply")]
    else:
        rows = [step_texts(words, "explain", c) for c in concepts[:MAX_STEPS]]
        if len(rows) == 2:
            rows.append(step_texts(words, "both", " + ".join(concepts)))
    return draft_of_rows(rows)


def draft_of_rows(rows: list[list[str]]) -> PlanDraft:
    """A plan from its steps, each (title, description, approach, criteria)."""
    lists = [list(column) for column in zip(*rows, strict=True)]
    return PlanDraft(**dict(zip(LISTS, lists, strict=True)))


def filled_in(draft: PlanDraft, language: str) -> PlanDraft:
    """The model's steps with the fields that only repeat their step's title (the bundled model
    wrote "Práctica de Recuperación" as title, description, approach and criteria) in code's
    words for explaining that title: a tutor message needs to know what the step asks for."""
    words = PHRASES.get(language.split("-")[0].lower(), PHRASES["en"])
    columns = []
    for step in draft.steps():
        codes = step_texts(words, "explain", step.title[:40])[1:]
        own = [step.description, step.teaching_approach, step.success_criteria]
        kept = [
            code if fold(text) == fold(step.title) else text
            for code, text in zip(codes, own, strict=True)
        ]
        columns.append([step.title, *kept])
    return draft_of_rows(columns)


NEW_PLAN_STEPS = 3
"""The fewest steps of a new plan (the planner's schema asks for 3 at least)."""


def padded(draft: PlanDraft, info: TopicInfoData, language: str) -> PlanDraft:
    """A new plan of the model's usable steps, with code's steps for the concept after them
    when fewer than `NEW_PLAN_STEPS` were usable (walking the demo, the bundled model's plan
    kept one step of its four: a session of one step about the concept's name)."""
    steps = draft.steps()
    if len(steps) >= NEW_PLAN_STEPS:
        return draft
    titles = {fold(step.title) for step in steps}
    extra = [s for s in fallback_draft(info, language).steps() if fold(s.title) not in titles]
    rows = [
        [s.title, s.description, s.teaching_approach, s.success_criteria]
        for s in [*steps, *extra][: max(NEW_PLAN_STEPS, len(steps))]
    ]
    return draft_of_rows(rows)


def kept_plan(plan: StudyPlanData) -> StudyPlanData:
    """The current plan after a replan whose answer was unusable: its steps as they are,
    blocked ones opened again (else nothing would be left to teach), one replan counted."""
    kept = copy.deepcopy(plan)
    for step in p.steps(kept):
        if step.get("status") == "blocked":
            step["status"] = "in_progress"
    kept["todo_list"] = p.steps(kept)
    meta = kept.setdefault("metadata", {})
    meta["replan_count"] = p.replan_count(plan) + 1
    return kept
