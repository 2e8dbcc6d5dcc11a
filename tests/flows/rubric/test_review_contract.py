"""The rubric's two reviews as models: the evaluation review and the revision's diff; a
malformed answer to either is refused in one line."""

from __future__ import annotations

import json

import pytest

from core.flows.rubric.graph import flow_spec
from core.flows.rubric.state import RevisionReview, RubricReview, review_of
from core.reviews import InvalidDecision
from tests.flows.rubric.notes import NOTE_PATH, REVISED_BODY, evaluation


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        ("evaluation_review", {"action": "edit"}),  # an edit without the edited content
        ("evaluation_review", {"action": "accept"}),  # the revision's answer, wrong review
        ("evaluation_review", {"action": "approve", "feedbak": "typo"}),
        ("revision_review", {"action": "approve"}),
        ("revision_review", "sí"),
        ("revision_review", {}),
    ],
)
def test_a_malformed_decision_is_a_one_line_error(kind: str, answer: object) -> None:
    with pytest.raises(InvalidDecision) as raised:
        flow_spec().decision({"type": kind}, answer)
    assert "\n" not in str(raised.value)


async def test_both_reviews_are_plain_data_that_reads_back(rubric) -> None:
    h = rubric(
        [evaluation(0.4), {"body": REVISED_BODY, "summary": "added an example"}, evaluation(0.9)]
    )
    await h.start()
    payload = await h.payload()
    assert json.loads(json.dumps(payload)) == payload
    review = review_of(payload)
    assert isinstance(review, RubricReview) and review.note_path == NOTE_PATH
    assert review.evaluation.overall_score == 0.4 and review.round == 1
    assert review.payload() == payload
    await h.resume({"action": "revise", "feedback": "give an example"})
    payload = await h.payload()
    revision = review_of(payload)
    assert isinstance(revision, RevisionReview) and "+For example" in revision.diff
    assert revision.payload() == payload
    answered = flow_spec().decision(payload, " Accept ")
    assert answered == {"action": "accept"}
    await h.resume(answered)
    again = review_of(await h.payload())
    assert isinstance(again, RubricReview) and again.round == 2
    assert again.evaluation.overall_score == 0.9
