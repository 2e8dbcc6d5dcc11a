"""The lesson flow says what its models did (issue 16): a self-review whose answer stays
invalid is "not reviewed" and goes to the judges flagged (main: PASS, badge "Passed"); a
self-reviewer that does not answer fails the run at its step; one model in every judge role
skips the tie-break and counts two judge calls as judging fully."""

from __future__ import annotations

from core.events import Done, Failed
from local_llm import TransientModelError
from tests.flows.lesson.script import trace_phases


async def test_an_invalid_self_review_is_not_reviewed_and_flagged(harness_factory):
    async with harness_factory() as h:
        h.script.review = {"status": "MAYBE", "reasoning": "?"}  # invalid every time
        run_id, events = await h.run()
        assert isinstance(events[-1], Done)
        review = (await h.state(run_id))["self_review"]
        assert review["decision"] == "FLAG_TO_JUDGE" and review["passed"] is False
        assert "gave no valid answer after" in review["not_reviewed"]
        assert h.models_asked("judge")  # the judges still decide


async def test_a_self_reviewer_that_does_not_answer_fails_the_run(harness_factory):
    async with harness_factory() as h:
        h.script.review = TransientModelError("Connection refused")
        run_id, events = await h.run()
        assert isinstance(events[-1], Failed)
        assert h.services.runtime.runs.get(run_id).status == "failed"
        assert not h.models_asked("judge")


async def test_one_model_in_every_judge_role_skips_the_tiebreak(harness_factory):
    from core.flows.lesson.traces import savings_report, savings_text

    async with harness_factory() as h:
        single = {
            "judge": {"model": "writer"},
            "judge_secondary": {"model": "writer"},
            "judge_tiebreak": {"model": "writer"},
        }
        h.services.settings.models.roles.update(
            {k: h.services.settings.models.roles[k].model_copy(update=v) for k, v in single.items()}
        )
        h.script.scores = {"*": [0.55, 0.95]}  # the two opinions differ: main called a third
        run_id, events = await h.run()
        assert isinstance(events[-1], Done)
        state = await h.state(run_id)
        assert state.get("judge_tiebreak") is None
        assert "one model serves every judge role" in state["cascade"]["reason"]
        assert ("judge", "skipped") in trace_phases(h, run_id)
        report = savings_report(h.services.store, run_id, h.services.settings)
        assert report["one_judge_model"] is True
        row = h.services.store.query_one(
            "SELECT judge_tokens, full_judge_tokens FROM lesson_runs WHERE run_id=?", (run_id,)
        )
        assert row[1] == max(row[0], row[1]) and row[1] > 0
        assert "judging fully counts two judge calls" in savings_text(report, [])


async def test_a_concept_that_does_not_exist_is_refused_before_any_run(harness_factory):
    """Main recorded the run, which then failed in load_sources (a failed run left behind)."""
    from core.flows.lesson.driver import start_lesson

    async with harness_factory() as h:
        for data in (
            {"mode": "generate", "concept": "Nopenope"},
            {"mode": "review", "note_path": "09 - Lessons/Nada.md"},
        ):
            before = len(h.services.runtime.list_runs())
            try:
                start_lesson(h.services, data)
            except ValueError as exc:
                assert "no " in str(exc)
            else:
                raise AssertionError(f"{data} was accepted")
            assert len(h.services.runtime.list_runs()) == before


async def test_a_judge_that_does_not_answer_fails_the_run(harness_factory):
    """Main turned it into a failed vote and went on (to a tie-break, or an escalation)."""
    async with harness_factory() as h:
        answer = h.script._judge
        h.script._judge = lambda model: (
            (_ for _ in ()).throw(TransientModelError("down"))
            if model == "judge-a"
            else answer(model)
        )
        run_id, events = await h.run()
        assert isinstance(events[-1], Failed)
        assert "judge-b" not in h.models_asked("judge")  # the cascade did not go on without it
        h.script._judge = answer
        events = await h.services.runtime.run_until_pause(run_id)  # resume at the judge
        assert isinstance(events[-1], Done)
        assert (await h.state(run_id))["status"] == "accepted"


async def test_judges_whose_answers_stay_invalid_escalate_saying_so(harness_factory):
    """The tiny model's judges often answer with nothing valid (the e2e test allows it): the
    lesson is never accepted on no evidence; the user is asked, told no judge could evaluate
    it, and each judge's failure is in the run's errors."""
    from core.events import Interrupted

    async with harness_factory() as h:
        h.script._judge = lambda model: {"criteria": "garbage"}
        run_id, events = await h.run()
        assert isinstance(events[-1], Interrupted)
        assert events[-1].payload["type"] == "lesson_review"
        state = await h.state(run_id)
        cascade = state["cascade"]
        assert cascade["votes"] == [] and cascade["decision"] == "escalate"
        assert cascade["reason"].startswith("no judge could evaluate the lesson")
        assert state["judge_primary_status"] == "error"
        failed = [e for e in state["errors"] if e.startswith("lesson evaluation: ")]
        assert len(failed) == 3  # distinct judge models: all three asked (each re-asked too)
        assert sorted(set(h.models_asked("judge"))) == ["judge-a", "judge-b", "judge-c"]
        events = await h.resume_run(run_id, {"action": "accept"})
        assert isinstance(events[-1], Done)
        assert (await h.state(run_id))["status"] == "accepted"


async def test_a_section_the_model_never_answers_validly_fails_there_and_resumes_there(
    harness_factory,
):
    """What the e2e test relies on when Gemma loops to the token limit on every re-ask of a
    section: the run fails at that section (no lesson is written without it), and resuming
    asks for the section again without planning again."""
    async with harness_factory() as h:
        broken = {"on": True}

        def sections_broken(call):
            if broken["on"] and call.node == "expand_section":
                return {"nope": "x"}
            return h.script(call)

        h.backend.answer = sections_broken
        run_id, events = await h.run()
        assert isinstance(events[-1], Failed) and "gave no valid answer" in events[-1].error
        assert h.services.runtime.runs.get(run_id).status == "failed"
        broken["on"] = False
        events = await h.services.runtime.run_until_pause(run_id)  # as `s` does
        assert isinstance(events[-1], Done)
        assert h.script.count("plan") == 1
        assert (await h.state(run_id))["status"] == "accepted"
