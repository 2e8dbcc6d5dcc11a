"""The escalation's contract: `LessonReview` out of the SQLite checkpoint, `LessonDecision` in;
a malformed answer is refused in one line and the escalation keeps waiting."""

from __future__ import annotations

import json

import pytest

from core.events import Done, Interrupted
from core.flows.lesson.graph import SPEC
from core.flows.lesson.state import LessonDecision, LessonReview
from core.reviews import InvalidDecision

MALFORMED = [
    {"action": "edit"},  # an edit without the new text
    {"action": "edit", "content": " \n "},
    {"action": "publish"},
    {"action": "accept", "contents": "x"},
    {"action": "edit", "content": ["## Uno"]},
    None,
]


@pytest.mark.parametrize("answer", MALFORMED)
def test_a_malformed_decision_is_a_one_line_error(answer: object) -> None:
    with pytest.raises(InvalidDecision) as raised:
        SPEC.decision({"type": "lesson_review"}, answer)
    assert "\n" not in str(raised.value)


def test_an_edit_keeps_its_text() -> None:
    text = "# Lección\n\n## Uno\n\nΔx → 0 ✓\n"
    assert LessonDecision.parse({"action": "Edit", "content": text}).content == text


async def test_the_escalation_round_trips_and_refuses_a_bad_answer(harness_factory) -> None:
    async with harness_factory(max_regenerations=0, max_judge_fixes=0) as h:
        h.script.scores = {"judge-a": [0.2], "judge-b": [0.25], "judge-c": [0.2]}
        run_id, events = await h.run()
        assert isinstance(events[-1], Interrupted)
        pending = await h.services.runtime.pending_interrupt(run_id)
        payload = pending.payload
        assert json.loads(json.dumps(payload)) == payload
        review = LessonReview.model_validate(payload)
        assert review.payload() == payload and review.lesson and review.cascade is not None
        with pytest.raises(InvalidDecision, match="an edit needs the new text"):
            await h.resume_run(run_id, {"action": "edit"})
        assert h.services.runtime.runs.get(run_id).status == "awaiting_review"
        events = await h.resume_run(run_id, "accept")
        assert isinstance(events[-1], Done)
