"""The review contract's base: an answer is read into the decision model or refused in one line."""

from __future__ import annotations

from typing import Literal

import pytest

from core.reviews import Decision, InvalidDecision, Review


class Pick(Decision):
    action: Literal["keep", "toss"]
    note: str = ""


@pytest.mark.parametrize(
    "value",
    [
        {"action": "maybe"},
        {"action": "keep", "nota": "typo in the key"},
        {"note": "no action at all"},
        ["keep"],
        None,
        42,
        "🤷",
    ],
)
def test_a_malformed_answer_is_one_line_naming_what_is_wrong(value: object) -> None:
    with pytest.raises(InvalidDecision) as raised:
        Pick.parse(value)
    message = str(raised.value)
    assert "\n" not in message and message.startswith("invalid review answer")
    assert isinstance(raised.value, ValueError)  # front ends that catch ValueError still do


def test_the_message_names_the_field_and_the_choices() -> None:
    with pytest.raises(InvalidDecision, match=r"action: Input should be 'keep' or 'toss'"):
        Pick.parse({"action": "maybe"})
    with pytest.raises(InvalidDecision, match=r"nota: Extra inputs are not permitted"):
        Pick.parse({"action": "keep", "nota": "x"})


def test_a_bare_action_string_and_its_case_are_accepted() -> None:
    assert Pick.parse("  KEEP ").action == "keep"
    assert Pick.parse({"action": "Toss", "note": "ñandú 🐦"}) == Pick(
        action="toss", note="ñandú 🐦"
    )
    decided = Pick(action="keep")
    assert Pick.parse(decided) is decided


def test_a_review_payload_is_plain_json_data_and_reads_back() -> None:
    class Shown(Review):
        type: Literal["shown"] = "shown"
        items: list[tuple[str, int]] = []

    review = Shown(actions=["keep"], items=[("α", 1)])
    payload = review.payload()
    assert payload == {"type": "shown", "actions": ["keep"], "items": [["α", 1]]}
    assert Shown.model_validate(payload) == review
    # a payload checkpointed by another version: unknown fields are ignored, not an error
    assert Shown.model_validate({**payload, "retired_field": 1}) == review
