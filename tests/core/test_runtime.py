"""The runtime: events, interrupt/resume, failures, recursion limits, restart survival.

Every test runs on both stores (`store_backend`): SQLite, and the shared tables and
checkpoints in a real PostgreSQL server."""

from __future__ import annotations

import asyncio
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
from core.events import Done, Failed, Interrupted, NodeFinished, NodeStarted, Progress
from core.runtime import FlowSpec, Runtime
from core.settings import Settings
from core.store import open_store
from core.store.runs import INTERRUPTED
from tests.core.counting_flow import SPEC
from tests.fixtures.postgres import store_env

REPO = Path(__file__).resolve().parents[2]


def make_runtime(tmp_path: Path, store_settings: dict, flows=None) -> Runtime:
    settings = Settings(data={"directory": tmp_path / "data"}, store=store_settings)
    store = open_store(settings)
    flows = flows or {"counting": SPEC}
    return Runtime(
        settings, store, flows, lambda run_id: FlowContext(settings, None, store, run_id=run_id)
    )


def counts(path: Path) -> dict[str, int]:
    return json.loads(path.read_text())


async def test_run_streams_typed_events_and_waits_for_review(
    tmp_path: Path, store_backend: dict
) -> None:
    counter = tmp_path / "counts.json"
    async with make_runtime(tmp_path, store_backend) as runtime:
        run = runtime.start("counting", {"counter_file": str(counter)}, target="demo")
        events = await runtime.run_until_pause(run.id)
        kinds = [type(event) for event in events]
        assert NodeStarted in kinds and NodeFinished in kinds and Progress in kinds
        assert isinstance(events[-1], Interrupted)
        assert events[-1].payload == {"type": "review", "steps": ["prepare"]}
        progress = next(event for event in events if isinstance(event, Progress))
        assert progress.node == "prepare" and progress.data["message"] == "preparing"
        assert runtime.runs.get(run.id).status == "awaiting_review"
        assert [r.id for r in runtime.list_runs(status="awaiting_review")] == [run.id]

        events = await runtime.run_until_pause(run.id, {"action": "approve"}, resume=True)
        assert isinstance(events[-1], Done)
        assert events[-1].output["steps"] == ["prepare", "review", "commit"]
        assert events[-1].output["answer"] == {"action": "approve"}
    assert counts(counter) == {"prepare": 1, "review": 1, "commit": 1}


async def test_invalid_input_is_refused_before_a_run_exists(
    tmp_path: Path, store_backend: dict
) -> None:
    async with make_runtime(tmp_path, store_backend) as runtime:
        with pytest.raises(ValueError, match="counter_file"):
            runtime.start("counting", {})
        assert runtime.list_runs() == []
        with pytest.raises(KeyError, match="unknown flow"):
            runtime.start("nope", {})


async def test_resume_refused_unless_awaiting_review(tmp_path: Path, store_backend: dict) -> None:
    async with make_runtime(tmp_path, store_backend) as runtime:
        run = runtime.start("counting", {"counter_file": str(tmp_path / "c.json")})
        with pytest.raises(ValueError, match="not awaiting review"):
            await runtime.run_until_pause(run.id, "x", resume=True)


async def test_node_exception_fails_the_run_and_retry_continues_from_checkpoint(
    tmp_path: Path, store_backend: dict
) -> None:
    counter = tmp_path / "counts.json"
    async with make_runtime(tmp_path, store_backend) as runtime:
        run = runtime.start("counting", {"counter_file": str(counter), "fail_once": True})
        await runtime.run_until_pause(run.id)
        events = await runtime.run_until_pause(run.id, "ok", resume=True)
        assert isinstance(events[-1], Failed)
        assert "disk full" in events[-1].error
        record = runtime.runs.get(run.id)
        assert record.status == "failed" and "disk full" in record.error

        events = await runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Done)
    # prepare and review ran once; only the failed node ran again
    assert counts(counter) == {"prepare": 1, "review": 1, "commit": 2}


async def test_recursion_limit_becomes_a_failed_run(tmp_path: Path, store_backend: dict) -> None:
    def loop_graph() -> StateGraph:
        graph = StateGraph(dict, context_schema=FlowContext)
        graph.add_node("spin", lambda state: {"n": state.get("n", 0) + 1})
        graph.add_edge(START, "spin")
        graph.add_conditional_edges("spin", lambda state: "spin" if state["n"] < 1000 else END)
        return graph

    spec = FlowSpec(
        name="loop", build_graph=loop_graph, recursion_limit=lambda s: 10, human_in_loop=False
    )
    async with make_runtime(tmp_path, store_backend, {"loop": spec}) as runtime:
        run = runtime.start("loop", {"n": 0})
        events = await runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Failed)
        assert "recursion limit" in events[-1].error
        assert runtime.runs.get(run.id).status == "failed"


DRIVER = Path(__file__).with_name("restart_driver.py")


def run_process(*args: str, store: dict | None = None) -> str:
    env = {**os.environ, **store_env(store or {})}
    done = subprocess.run(
        [sys.executable, str(DRIVER), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_awaiting_run_survives_a_process_restart(tmp_path: Path, store_backend: dict) -> None:
    counter = tmp_path / "counts.json"
    data = str(tmp_path / "data")
    run_id, kind = run_process(data, "start", str(counter), store=store_backend).split()
    assert kind == "Interrupted"
    assert counts(counter) == {"prepare": 1}
    if store_backend:  # the second process is another machine: its own, empty data dir
        data = str(tmp_path / "other-machine")
    out = run_process(data, "resume", run_id, store=store_backend)
    assert out == 'awaiting_review ["prepare"] Done ["prepare", "review", "commit"]'
    assert counts(counter) == {"prepare": 1, "review": 1, "commit": 1}


async def test_interrupt_is_reported_after_the_run_is_recorded_as_awaiting(
    tmp_path: Path, store_backend: dict
) -> None:
    async with make_runtime(tmp_path, store_backend) as runtime:
        run = runtime.start("counting", {"counter_file": str(tmp_path / "c.json")})
        async for event in runtime.stream(run.id):
            if isinstance(event, Interrupted):
                assert runtime.runs.get(run.id).status == "awaiting_review"
                break
        else:
            raise AssertionError("no interrupt")


async def test_a_graph_that_ends_in_a_failure_state_is_a_failed_run(
    tmp_path: Path, store_backend: dict
) -> None:
    def build() -> StateGraph:
        graph = StateGraph(dict)
        graph.add_node("work", lambda state: {"outcome": "failed", "why": "no luck"})
        graph.add_edge(START, "work")
        graph.add_edge("work", END)
        return graph

    def failure(state: dict) -> str | None:
        return state.get("why") if state.get("outcome") == "failed" else None

    spec = FlowSpec(name="fragile", build_graph=build, human_in_loop=False, failure=failure)
    async with make_runtime(tmp_path, store_backend, {"fragile": spec}) as runtime:
        run = runtime.start("fragile", {})
        events = await runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Done) and events[-1].output["outcome"] == "failed"
        record = runtime.runs.get(run.id)
        assert record.status == "failed" and record.error == "no luck"
        assert [r.id for r in runtime.list_runs(status="failed")] == [run.id]


async def test_done_carries_the_checkpointed_state(tmp_path: Path, store_backend: dict) -> None:
    """The output a run ends with is its last streamed state: the same as a checkpoint read."""
    counter = tmp_path / "counts.json"
    async with make_runtime(tmp_path, store_backend) as runtime:
        run = runtime.start("counting", {"counter_file": str(counter)})
        await runtime.run_until_pause(run.id)
        events = await runtime.run_until_pause(run.id, {"action": "approve"}, resume=True)
        done = events[-1]
        assert isinstance(done, Done)
        assert done.output == dict((await runtime.state(run.id)).values)
        assert done.output["steps"] == ["prepare", "review", "commit"]


class SlowState(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]


async def test_a_run_stopped_mid_way_is_queued_again_as_interrupted(
    tmp_path: Path, store_backend: dict
) -> None:
    """Quitting cancels the worker while a node waits (on the model, say): the run is not left
    "running" but queued with a note saying it was interrupted, and started again it goes on
    from its checkpoint (the finished node does not run again)."""
    entered = asyncio.Event()
    calls = {"first": 0, "slow": 0}
    stall = [True]

    async def first(state: SlowState) -> dict:
        calls["first"] += 1
        return {"steps": ["first"]}

    async def slow(state: SlowState) -> dict:
        calls["slow"] += 1
        entered.set()
        if stall[0]:
            await asyncio.sleep(30)  # the model thinks; the user quits
        return {"steps": ["slow"]}

    def build() -> StateGraph:
        graph = StateGraph(SlowState, context_schema=FlowContext)
        graph.add_node("first", first)
        graph.add_node("slow", slow)
        graph.add_edge(START, "first")
        graph.add_edge("first", "slow")
        graph.add_edge("slow", END)
        return graph

    spec = FlowSpec(name="slowpoke", build_graph=build)
    async with make_runtime(tmp_path, store_backend, {"slowpoke": spec}) as runtime:
        run = runtime.start("slowpoke", {})
        task = asyncio.create_task(runtime.run_until_pause(run.id))
        await asyncio.wait_for(entered.wait(), 20)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        record = runtime.runs.get(run.id)
        assert (record.status, record.error, record.interrupted) == ("queued", INTERRUPTED, True)
        stall[0] = False
        events = await runtime.run_until_pause(run.id)
        assert isinstance(events[-1], Done) and events[-1].output["steps"] == ["first", "slow"]
        record = runtime.runs.get(run.id)
        assert (record.status, record.error, record.interrupted) == ("done", None, False)
    assert calls == {"first": 1, "slow": 2}


async def test_a_failed_run_tells_the_user_what_failed_and_keeps_the_location_in_its_trace(
    tmp_path: Path, store_backend: dict
) -> None:
    counter = tmp_path / "counts.json"
    async with make_runtime(tmp_path, store_backend) as runtime:
        run = runtime.start("counting", {"counter_file": str(counter), "fail_once": True})
        await runtime.run_until_pause(run.id)
        events = await runtime.run_until_pause(run.id, "ok", resume=True)
        error = events[-1].error
        assert "disk full" in error and "(at " not in error and ".py" not in error
        trace = runtime.store.query_one(
            "SELECT detail FROM traces WHERE run_id = ? AND kind = 'failure'", (run.id,)
        )
        assert "disk full" in trace["detail"] and "counting_flow.py:" in trace["detail"]
