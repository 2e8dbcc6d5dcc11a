"""What the executor's model writes reaches the learner only when it is a message (issue 12,
issue 16): a hint made up by code never gives the answer away, a looping model is stopped and
its loop removed, an empty message fails the turn instead of a stand-in built from the plan."""

from __future__ import annotations

import pytest

from core.flows.tutor.session import turn
from tests.flows.tutor.scripted import TutorScript

LOOP = "Una fracción es una parte de un todo. "


class Writes(TutorScript):
    """A TutorScript whose executor writes `text` (the first message)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __call__(self, messages, schema):
        if messages[0]["content"].startswith(("You are the PLANNER", "You are the EVALUATOR")):
            return super().__call__(messages, schema)
        return self.text


async def test_fallback_hints_never_reveal_the_success_criteria(tutor) -> None:
    """Main's fallback hint was "Think about: <success criteria>": the answer itself."""
    async with tutor(Writes("¿Qué es mayor, 1/2 o 1/4?")) as t:
        await t.turn()
        state = await t.values()
        step = state["study_plan"]["todo_list"][0]
        [message] = state["conversation"]
        assert message["hints"]
        for hint in message["hints"]:
            assert step["success_criteria"] not in hint
            assert "answers 1 question right" not in hint


async def test_a_looping_message_is_stopped_and_stored_without_the_loop(tutor) -> None:
    async with tutor(Writes(LOOP * 20 + "¿Lo ves?\nHint: cuenta las porciones")) as t:
        events = await t.turn()
        [message] = (await t.values())["conversation"]
        assert message["content"].count("Una fracción es una parte de un todo.") == 1
        assert t.tokens(events).count("Una fracción es una parte de un todo.") <= 2


async def test_an_empty_message_fails_the_turn_instead_of_a_stand_in(tutor) -> None:
    """Main wrote "<step title>: <step description>" as the tutor's message."""
    async with tutor(Writes("")) as t:
        events = [e async for e in turn(t.services.runtime, t.session_id, None)]
        assert type(events[-1]).__name__ == "Failed"
        assert "empty message" in events[-1].error
        assert not (await t.values()).get("conversation")


@pytest.mark.parametrize("text", ["reasons: reasons", "titles", "Step 1: step 1"])
async def test_a_plan_made_of_field_names_is_asked_again(tutor, text: str) -> None:
    """Issue 12: the tutor asked "reasons: reasons" (a plan whose fields held field names)."""

    class FieldNames(TutorScript):
        def plan(self, schema):
            answer = super().plan(schema)
            if self.plans == 1:
                count = len(answer["titles"])
                answer |= {"titles": [text] * count, "descriptions": [text] * count}
            return answer

    async with tutor(FieldNames()) as t:
        await t.turn()
        state = await t.values()
        assert t.script.plans == 2  # re-asked
        assert all(s["title"] != text for s in state["study_plan"]["todo_list"])
