"""A tutor message whose stream is cut off mid-answer is never taken as a complete message:
the turn fails saying so, and running the turn again asks the model again."""

from __future__ import annotations

from typing import Any

from core.events import Failed, Progress
from core.flows.tutor.session import needs_retry, turn
from local_llm import Completion
from tests.flows.tutor.scripted import TutorScript


class CutOnce(TutorScript):
    """The first teaching message stops after a few words with no finish from the server."""

    cut = False

    def __call__(self, messages: list[dict[str, Any]], schema: Any) -> Any:
        answer = super().__call__(messages, schema)
        if isinstance(answer, str) and not self.cut:
            self.cut = True
            return Completion(answer[:14], finish_reason=None)
        return answer


async def test_a_cut_message_fails_the_turn_and_the_retry_asks_again(tutor) -> None:
    async with tutor(CutOnce()) as t:
        runtime = t.services.runtime
        events = [e async for e in turn(runtime, t.session_id)]
        streamed = "".join(
            e.data["token"] for e in events if isinstance(e, Progress) and "token" in e.data
        )
        assert streamed == "Question 1: wh"  # shown as it came...
        assert isinstance(events[-1], Failed) and "was cut off" in events[-1].error
        assert not (await t.values()).get("conversation")  # ...but never kept as a message
        assert needs_retry(runtime, t.session_id)
        await t.turn()  # the learner retries the turn: the model is asked again
        (message,) = (await t.values())["conversation"]
        assert message["content"] == "Question 2: what is bigger, 1/2 or 1/4?"
