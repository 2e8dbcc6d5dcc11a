"""The review contract through the real runtime: the payload is plain data in the SQLite
checkpoint and reads back as `ExtractionReview`; a malformed answer is refused before the run
moves (`InvalidDecision`, one line) and the review still waits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.events import Done
from core.flows.extraction.graph import SPEC
from core.flows.extraction.state import ExtractionDecision, ExtractionReview
from core.reviews import InvalidDecision
from tests.flows.extraction.notes import SOURCE
from tests.flows.extraction.test_runtime import make_vault, open_app, paused_run

MALFORMED = [
    {"action": "maybe"},
    {"action": "feedback"},  # feedback without text
    {"action": "feedback", "feedback": "   "},
    {"action": "drop", "drops": []},
    {"action": "drop", "drops": [{"kind": "concept"}]},  # which concept?
    {"action": "drop", "drops": [{"kind": "attribution", "concept_id": "c"}]},
    {"action": "approve", "drop": [{"kind": "concept", "id": "c"}]},  # misspelt key
    {"action": "approve", "drops": "all"},
    ["approve"],
    7,
]


@pytest.mark.parametrize("answer", MALFORMED)
def test_a_malformed_decision_is_a_one_line_error(answer: object) -> None:
    with pytest.raises(InvalidDecision) as raised:
        ExtractionDecision.parse(answer)
    assert "\n" not in str(raised.value)
    with pytest.raises(InvalidDecision):  # what the runtime calls before it resumes
        SPEC.decision({"type": "extraction_review"}, answer)


def test_feedback_without_text_but_with_drops_is_a_drop() -> None:
    drops = [{"kind": "relation", "id": "r-1a2b3c4d"}]
    decided = ExtractionDecision.parse({"action": "Feedback", "feedback": " ", "drops": drops})
    assert decided.action == "drop" and decided.drops[0].id == "r-1a2b3c4d"


async def test_the_review_round_trips_through_the_sqlite_checkpoint(tmp_path: Path) -> None:
    root, data = make_vault(tmp_path)
    async with open_app(root, data) as app:
        run_id = await paused_run(app)
    async with open_app(root, data) as app:  # another process: only the checkpoint is left
        pending = await app.runtime.pending_interrupt(run_id)
        assert pending is not None
        payload = pending.payload
        assert json.loads(json.dumps(payload)) == payload  # plain JSON data, no models
        review = ExtractionReview.model_validate(payload)
        assert review.payload() == payload
        assert review.source == SOURCE and len(review.concepts) == 2
        assert all(q.text for c in review.concepts for q in c.quotes)

        for answer in ({"action": "maybe"}, {"action": "feedback"}, "aprobar"):
            with pytest.raises(InvalidDecision):
                await app.runtime.run_until_pause(run_id, answer, resume=True)
        assert app.runtime.runs.get(run_id).status == "awaiting_review"
        assert (await app.runtime.pending_interrupt(run_id)).payload == payload  # untouched
        assert app.llm.backend().calls == []

        keep = review.concepts[0].id
        drops = [{"kind": "concept", "id": c.id} for c in review.concepts if c.id != keep]
        events = await app.runtime.run_until_pause(
            run_id, {"action": "APPROVE", "drops": drops}, resume=True
        )
        assert isinstance(events[-1], Done) and events[-1].output["outcome"] == "committed"
        assert events[-1].output["decision"]["action"] == "approve"
