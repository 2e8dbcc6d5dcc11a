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


async def test_a_step_that_fans_out_runs_until_its_last_call_finishes():
    """Found walking issue 12: one of two extraction batches done showed the step as done."""
    from tui.widgets.extraction_steps import ExtractionSteps

    class Steps(App):
        def compose(self):
            yield ExtractionSteps()

    async with Steps().run_test() as pilot:
        steps = pilot.app.query_one(ExtractionSteps)
        steps.apply(Progress("r", "extract_batch", {"step": "1.1a", "total": 2, "message": "x"}))
        steps.apply(NodeStarted("r", "extract_batch"))
        steps.apply(NodeStarted("r", "extract_batch"))
        steps.apply(NodeFinished("r", "extract_batch", {}))
        assert steps.states["1.1a"] == "running" and steps.counts["1.1a"] == "1/2"
        steps.apply(Failed("r", "no valid answer"))
        assert steps.states["1.1a"] == "failed"


async def test_the_lesson_stepper_forgets_an_old_failure_once_the_run_goes_on():
    from tui.widgets.lesson_stepper import LessonStepper

    class Host(App):
        def compose(self):
            yield LessonStepper()

    async with Host().run_test() as pilot:
        stepper = pilot.app.query_one(LessonStepper)
        stepper.apply(NodeStarted("r", "planner"))
        stepper.apply(Failed("r", "StructuredOutputError\nno valid answer"))
        assert stepper.message == "no valid answer"
        stepper.apply(NodeStarted("r", "planner"))  # retried from its checkpoint
        assert stepper.message == "" and stepper.states[0] == "running"
