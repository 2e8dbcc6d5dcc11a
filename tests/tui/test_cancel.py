"""`c` on home stops a running run (its model call aborted); `s` continues it later from its
last checkpoint."""

from __future__ import annotations

from core.runtime import STOPPED
from local_llm.testing import ScriptedBackend
from tests.core.model_flow import SPEC, counts
from tests.tui.helpers import settle, wait_for
from tui.widgets import RunsTable

SIZE = (130, 40)


def select(app, run_id: str) -> None:
    table = app.screen.query_one(RunsTable)
    table.move_cursor(row=table.get_row_index(run_id))


async def test_c_stops_a_running_run_and_s_continues_it(make_app, tmp_path) -> None:
    backend = ScriptedBackend(lambda *_: {"reply": "pong"}, latency_s=60)
    app = make_app(backend=backend, flows={"asking": SPEC})
    runtime = app._injected.runtime
    counter = tmp_path / "counts.json"
    run = runtime.start("asking", {"counter_file": str(counter)})
    async with app.run_test(size=SIZE) as pilot:
        # autostarted; it waits on the model for a minute
        await wait_for(pilot, lambda: backend.calls_of("complete"))
        await wait_for(
            pilot, lambda: app.screen.query_one(RunsTable).records[run.id].status == "running"
        )
        select(app, run.id)
        await pilot.press("c")
        await wait_for(pilot, lambda: runtime.runs.get(run.id).status == "cancelled", timeout=5)
        await wait_for(pilot, lambda: run.id not in app.driving)
        assert runtime.runs.get(run.id).error == STOPPED
        assert counts(counter) == {"read": 1}
        assert any("stopped run" in n.message for n in app._notifications)
        await settle(pilot, app)
        assert app.screen.query_one(RunsTable).records[run.id].status == "cancelled"
        backend.latency_s = 0
        select(app, run.id)
        await pilot.press("s")
        await wait_for(pilot, lambda: runtime.runs.get(run.id).status == "done")
    assert counts(counter) == {"read": 1, "ask": 1, "write": 1}
