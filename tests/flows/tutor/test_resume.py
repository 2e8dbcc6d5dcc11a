"""Sessions survive a restart; Runtime.send continues a finished thread with new input."""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from core.context import FlowContext
from core.events import Done
from core.runtime import FlowSpec, Runtime
from core.settings import Settings
from core.store import Store

DRIVER = Path(__file__).with_name("restart_driver.py")


def drive(tmp_path: Path, *args: str) -> dict:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    out = subprocess.run(
        [sys.executable, str(DRIVER), str(tmp_path / "data"), str(tmp_path / "vault"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_session_resumes_in_a_new_process(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    first = drive(tmp_path, "start")
    assert first["last"] == "Done" and first["roles"] == ["tutor"]
    second = drive(tmp_path, "answer", first["session"], "1/2 is bigger")
    assert second["last"] == "Done"
    assert second["roles"] == ["tutor", "student", "tutor", "tutor"]
    assert second["first"] == first["first"]  # the conversation is the same thread
    assert second["statuses"][:2] == ["completed", "in_progress"]
    assert second["calls"] == 2  # evaluator + executor only: nothing re-ran after the restart


class Chat(TypedDict, total=False):
    messages: Annotated[list[str], operator.add]


def reply(state: Chat) -> dict:
    return {"messages": [f"echo {len(state['messages'])}"]}


def chat_graph() -> StateGraph:
    graph = StateGraph(Chat, context_schema=FlowContext)
    graph.add_node("reply", reply)
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph


async def test_send_appends_to_a_finished_thread(tmp_path: Path) -> None:
    settings = Settings(data={"directory": tmp_path})
    store = Store(settings.store_path)
    spec = FlowSpec(name="chat", build_graph=chat_graph)
    factory = lambda run_id: FlowContext(settings, None, store, run_id=run_id)  # noqa: E731
    async with Runtime(settings, store, {"chat": spec}, factory) as runtime:
        run = runtime.start("chat", {"messages": ["hi"]})
        await runtime.run_until_pause(run.id)
        with pytest.raises(ValueError, match="finished"):
            [e async for e in runtime.send(runtime.start("chat", {"messages": []}).id, {})]
        for text in ("a", "b"):
            events = [e async for e in runtime.send(run.id, {"messages": [text]})]
            assert isinstance(events[-1], Done)
        assert events[-1].output["messages"] == ["hi", "echo 1", "a", "echo 3", "b", "echo 5"]
        assert runtime.runs.get(run.id).status == "done"
