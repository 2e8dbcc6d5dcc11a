"""The extraction review's text is drawn from `ExtractionReview`, validated once from the
interrupt payload: a payload a run checkpointed before a field existed still shows."""

from __future__ import annotations

from core.flows.extraction.state import ExtractionReview
from tui.widgets.extraction_review import (
    detail_text,
    drops_for,
    notes_text,
    offered_actions,
    review_headline,
    review_rows,
)

OLD_PAYLOAD = {
    "type": "extraction_review",
    "source_title": "Make It Stick 📚",
    "round": 1,
    "max_rounds": 3,
    "relations": [
        {
            "id": "r1",
            "source_id": "c1",
            "source_title": "Efecto del espaciado",
            "type": "PART_OF",
            "target_id": "e9",
            "target_title": "Práctica de recuperación",
            "inverse_type": "HAS_PART",
            "confidence": 0.7,
            "explanation": "así",
        }
    ],
    "existing": [{"concept_id": "e9", "title": "Práctica de recuperación", "quote_ids": ["q2"]}],
}
"""An older review: no concepts, duplicates, attributions, actions or notes keys at all."""


def test_a_review_missing_fields_reads_with_their_defaults() -> None:
    review = ExtractionReview.model_validate(OLD_PAYLOAD)
    headline = review_headline(review, lambda action: action[0]).plain
    assert headline.startswith("Review of Make It Stick 📚 (0 new, 0 duplicates, 1 relations")
    assert "a: approve" in headline  # a payload without actions offers every one, as before
    assert offered_actions(review) == ["drop", "feedback", "approve", "abort"]
    assert review_rows(review) == [
        (
            "relation|r1",
            "relation",
            "Efecto del espaciado PART_OF Práctica de recuperación",
            "inverse HAS_PART",
        )
    ]
    assert (
        "Efecto del espaciado —PART_OF→ Práctica de recuperación"
        in detail_text(review, "relation|r1").plain
    )
    assert drops_for("duplicate|e9", review) == [
        {"kind": "attribution", "concept_id": "e9", "quote_id": "q2"}
    ]
    assert "Critique log" in notes_text(review).plain


def test_actions_the_review_names_are_the_ones_offered() -> None:
    review = ExtractionReview.model_validate({**OLD_PAYLOAD, "actions": ["feedback", "abort"]})
    headline = review_headline(review, lambda action: action[0]).plain
    assert "Nothing to commit yet" in headline and "a: approve" not in headline
    assert offered_actions(review) == ["feedback", "abort"]
