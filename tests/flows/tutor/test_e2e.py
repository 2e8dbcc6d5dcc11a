"""The tutor against the real local model (llama.cpp + Gemma 3 270M): two turns through the
runtime. The tiny model's teaching is weak; this asserts mechanics: every state update a node
returns and every state after a turn is schema-valid, the executor's message is read from a real
stream (cut at any chat-template marker the model runs into), statuses are code's."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.events import Done, NodeFinished, Progress
from core.flows.tutor.graph import SPEC
from core.flows.tutor.session import session_values, start_session, turn
from core.flows.tutor.state import validate_state
from core.services import open_services
from core.settings import Settings
from local_llm import LLMClient
from local_llm.turn_markers import TURN_MARKERS
from tests.flows.tutor.scripted import lesson


@pytest.mark.e2e
async def test_two_turns_with_the_local_model(local_llm_client: LLMClient, tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    settings = Settings(vault={"path": tmp_path / "vault"}, data={"directory": tmp_path / "data"})
    services = open_services(settings, {"tutor": SPEC})
    roles = {
        name: c.replace(max_tokens=1024, timeout_s=300.0)
        for name, c in local_llm_client.roles.items()
    }
    services.llm = LLMClient(roles, trace_sink=services.llm.trace_sink)
    updates: list[tuple[str, dict]] = []
    async with services:
        session = start_session(services.runtime, lesson(), settings).id
        for text in (None, "1/2 is bigger because the pizza is cut into fewer slices"):
            events = [e async for e in turn(services.runtime, session, text)]
            assert isinstance(events[-1], Done), events[-1]
            updates += [(e.node, e.update) for e in events if isinstance(e, NodeFinished)]
            state = await session_values(services.runtime, session)
            validate_state(state)
            streamed = "".join(
                e.data["token"] for e in events if isinstance(e, Progress) and "token" in e.data
            )
            message = state["conversation"][-1]
            assert message["role"] == "tutor" and message["content"].strip()
            # what streamed is the message (the model may end its turn at once: then the step
            # itself is the message), and no chat-template marker reaches the learner
            assert streamed.strip() in message["content"]
            assert not any(marker in message["content"] for marker in TURN_MARKERS)
        streams = services.store.query("SELECT outcome, detail FROM traces WHERE kind='stream'")
        # one stream per executor turn, two when the model wrote nothing and was asked again
        assert 2 <= len(streams) <= 4 and all(row["outcome"] == "ok" for row in streams)
    assert [node for node, _ in updates][:2] == ["planner", "executor"]
    assert "evaluator" in [node for node, _ in updates]
    for _node, update in updates:
        validate_state(update)
    state = await session_values_after(services, session, settings)
    plan = state["study_plan"]["todo_list"]
    assert 1 <= len(plan) <= 5  # the 3-5 steps drafted, each title once
    assert len({step["title"] for step in plan}) == len(plan)
    first = plan[0]["status_info"]
    assert first["questions_asked"] + first["attempts"] in (0, 2)  # off-topic, or counted once
    assert 0 <= state["last_evaluation"]["score"] <= 1
    assert [m["role"] for m in state["conversation"]][:2] == ["tutor", "student"]


async def session_values_after(services, session: str, settings: Settings) -> dict:
    """The final state, read back from the SQLite checkpoint by a fresh runtime."""
    fresh = open_services(settings, {"tutor": SPEC})
    async with fresh:
        return await session_values(fresh.runtime, session)
