"""The shared progress widget renders the runtime's typed events."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Label, ProgressBar

from core.events import Failed, NodeFinished, NodeStarted, Progress
from tui.widgets import RunProgress, Stepper


class Host(App):
    def compose(self):
        yield RunProgress(["prepare", "judge", "commit"])


async def test_run_progress_follows_events():
    app = Host()
    async with app.run_test() as pilot:
        widget = app.query_one(RunProgress)
        widget.apply(NodeStarted("r", "prepare"))
        widget.apply(NodeFinished("r", "prepare", {}))
        widget.apply(NodeStarted("r", "judge"))
        widget.apply(Progress("r", "judge", {"done": 3, "total": 4, "message": "judging 3/4"}))
        await pilot.pause()
        assert widget.query_one(Stepper).steps == {
            "prepare": "done",
            "judge": "running",
            "commit": "pending",
        }
        bar = widget.query_one(ProgressBar)
        assert bar.total == 4 and bar.progress == 3
        assert "judging 3/4" in str(widget.query_one(Label).render())
        widget.apply(Failed("r", "RuntimeError: boom"))
        await pilot.pause()
        assert widget.query_one(Stepper).steps["judge"] == "failed"
        assert "boom" in str(widget.query_one(Label).render())
