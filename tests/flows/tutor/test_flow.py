"""The tutor graph through the runtime with a scripted model: turns, statuses, replans, end."""

from __future__ import annotations

import frontmatter

from core.events import NodeStarted, Progress
from core.flows.tutor import logs
from core.flows.tutor.sessions import list_sessions
from tests.flows.tutor.scripted import TutorScript


def nodes_run(events) -> list[str]:
    return [e.node for e in events if isinstance(e, NodeStarted)]


async def test_first_turn_plans_and_streams_one_question(tutor) -> None:
    async with tutor(TutorScript()) as t:
        events = await t.turn()
        assert nodes_run(events) == ["planner", "executor"]
        state = await t.values()
        plan = state["study_plan"]
        assert len(plan["todo_list"]) == 3
        assert [s["status"] for s in plan["todo_list"]] == ["in_progress", "pending", "pending"]
        assert plan["metadata"] == {"plan_version": 1, "replan_count": 0, "max_replans": 3}
        [message] = state["conversation"]
        assert message["role"] == "tutor" and message["step_id"] == plan["todo_list"][0]["step_id"]
        assert message["content"] == "Question 1: what is bigger, 1/2 or 1/4?"
        assert message["hints"] == ["count the slices"]
        # streamed token by token, hint lines held back
        assert t.tokens(events).strip() == message["content"]
        assert sum(1 for e in events if isinstance(e, Progress) and "token" in e.data) > 3
        assert state["session_id"] == t.session_id
        assert [row.id for row in list_sessions(t.services.store)] == [t.session_id]


async def test_session_completes_with_summary_note(tutor) -> None:
    async with tutor(TutorScript(["right", "partial", "right", "right"])) as t:
        await t.turn()
        before = list((await t.values())["conversation"])
        events = await t.turn("1/2 is bigger")
        assert nodes_run(events) == ["evaluator", "executor"]
        state = await t.values()
        assert state["conversation"][: len(before)] == before  # append-only
        assert [m["role"] for m in state["conversation"][len(before) :]] == [
            "student",
            "tutor",
            "tutor",
        ]
        assert state["study_plan"]["todo_list"][0]["status"] == "completed"
        assert state["study_plan"]["todo_list"][1]["status"] == "in_progress"
        await t.turn("answer 2")  # partial: correct, step stays in progress (1 of 2)
        state = await t.values()
        info = state["study_plan"]["todo_list"][1]["status_info"]
        assert info == {"questions_asked": 1, "questions_correct": 1, "attempts": 1}
        assert state["mastery"] == round((1 + 0.5) / 3, 4)
        await t.turn("answer 3")  # second correct answer completes step 2
        events = await t.turn("answer 4")
        assert nodes_run(events) == ["evaluator", "finish"]
        state = await t.values()
        assert state["is_complete"] and state["outcome"] == "completed"
        summary = state["summary"]
        assert summary["steps_completed"] == 3 and summary["mastery_score"] == 1.0
        assert state["conversation"][-1]["kind"] == "closing"
        note = frontmatter.loads((t.vault / summary["note_path"]).read_text(encoding="utf-8"))
        assert summary["note_path"].startswith("11 - Tutoring/Fractions")
        assert note["session_id"] == t.session_id and note["outcome"] == "completed"
        # the whole conversation is in the note, in order, the summary in its own section
        talk = note.content.split("## Conversation\n", 1)[1]
        said = [line for line in talk.splitlines() if line.startswith("> ")]
        answers = [line for line in said if line.startswith("> answer") or "1/2 is" in line]
        assert answers == ["> 1/2 is bigger", "> answer 2", "> answer 3", "> answer 4"]
        assert talk.count("**You**") == 4 and talk.count("**Tutor**") >= 4
        assert "Steps completed" not in talk  # the closing message is the Summary section
        row = list_sessions(t.services.store)[0]
        assert (row.status, row.mastery, row.turns) == ("completed", 1.0, 4)
        assert row.summary_path == summary["note_path"]
        calls = len(t.backend.calls)
        events = await t.turn("one more?")  # a closed session stays closed
        assert nodes_run(events) == [] and len(t.backend.calls) == calls
        assert len(list((t.vault / "11 - Tutoring").iterdir())) == 1


async def test_off_topic_redirects_without_counting(tutor) -> None:
    async with tutor(TutorScript(["offtopic"], replan_on=[1])) as t:
        await t.turn()
        await t.turn("do you like football?")
        state = await t.values()
        first = state["study_plan"]["todo_list"][0]
        assert first["status"] == "in_progress"
        assert first["status_info"] == {"questions_asked": 0, "questions_correct": 0, "attempts": 0}
        redirect, question = state["conversation"][-2:]
        assert (
            redirect["kind"] == "redirect" and redirect["content"] == "Fun! But back to fractions."
        )
        assert question["kind"] == "teaching" and question["step_id"] == first["step_id"]
        assert state["replan_needed"] is False  # off-topic never triggers a replan
        assert state["last_evaluation"]["was_off_topic"] is True


async def test_single_mistake_does_not_replan_but_repeated_failures_do(tutor) -> None:
    script = TutorScript(["wrong", "wrong", "wrong"], replan_on=[1])
    async with tutor(script) as t:
        await t.turn()
        await t.turn("1/4")
        state = await t.values()
        assert state["replan_needed"] is False and script.plans == 1
        assert state["misconceptions"] == ["bigger denominator means bigger"]
        await t.turn("1/4 again")
        events = await t.turn("still 1/4")  # third failure blocks the step -> replan
        assert nodes_run(events) == ["evaluator", "planner", "executor"]
        notice = [e for e in events if isinstance(e, Progress) and e.data.get("replanned")]
        assert notice and notice[0].data["message"] == "plan changed"
        state = await t.values()
        meta = state["study_plan"]["metadata"]
        assert (meta["plan_version"], meta["replan_count"]) == (2, 1)
        assert [s["title"] for s in state["study_plan"]["todo_list"]] == [
            "P2 step 1",
            "P2 step 2",
        ]
        assert state["replan_needed"] is False and "note 3" in state["assessment_notes"]


async def test_replan_limit_ends_the_session_needing_another_approach(tutor) -> None:
    async with tutor(TutorScript(["wrong"] * 6), max_replans=1) as t:
        await t.turn()
        for _ in range(3):
            await t.turn("wrong")
        assert (await t.values())["study_plan"]["metadata"]["replan_count"] == 1
        await t.turn("wrong")
        await t.turn("wrong")
        events = await t.turn("wrong")
        assert nodes_run(events) == ["evaluator", "finish"]
        state = await t.values()
        assert state["outcome"] == "needs_another_approach" and state["is_complete"]
        assert state["summary"]["suggestions"][0].startswith("Fractions needs another approach")
        assert list_sessions(t.services.store)[0].status == "needs_another_approach"


async def test_agent_logs_are_written_per_session(tutor) -> None:
    async with tutor(TutorScript(["wrong"])) as t:
        await t.turn()
        await t.turn("1/4")
        data_dir = t.settings.data_dir
        entries = logs.read(data_dir, t.session_id)
        assert [e["agent"] for e in entries] == ["planner", "executor", "evaluator", "executor"]
        assert entries == (await t.values())["agent_logs"]
        for entry in entries:
            assert set(entry) == {
                "timestamp",
                "agent",
                "input_summary",
                "output",
                "reasoning",
                "duration_ms",
            }
            assert entry["duration_ms"] >= 0
        assert entries[2]["output"]["own_answer"] == "1/2"
        assert entries[2]["reasoning"] == "reasoning 1"
        text = logs.read_text(data_dir, t.session_id)
        assert text.count("] PLANNER (") == 1 and text.count("] EXECUTOR (") == 2
        only = logs.read_text(data_dir, t.session_id, "evaluator")
        assert "EVALUATOR" in only and "PLANNER" not in only


async def test_each_agent_announces_its_model_call(tutor) -> None:
    """Front ends draw while the model works: each agent says so just before its call."""
    async with tutor(TutorScript(["partial", "partial"])) as t:
        await t.turn()
        events = await t.turn("1/4")
        working = [
            (e.node, e.data["message"])
            for e in events
            if isinstance(e, Progress) and e.data.get("working")
        ]
        assert working == [("evaluator", "checking your answer"), ("executor", "writing")]
        order = [
            (type(e).__name__, e.node, "token" in getattr(e, "data", {}))
            for e in events
            if hasattr(e, "node")
            and (not (isinstance(e, Progress) and "token" in e.data) or e is first_token(events))
        ]
        executor_working = order.index(("Progress", "executor", False))
        assert order.index(("NodeStarted", "evaluator", False)) < order.index(
            ("Progress", "evaluator", False)
        )
        assert order.index(("NodeStarted", "executor", False)) < executor_working
        assert executor_working < order.index(("Progress", "executor", True))


def first_token(events):
    return next(e for e in events if isinstance(e, Progress) and "token" in e.data)


async def test_the_routers_run_on_the_event_loop(tutor, monkeypatch) -> None:
    """A plain routing function would run in a worker thread (a hop on every turn's way to
    its model calls): the tutor's routers run on the loop."""
    import threading

    from core.flows.tutor import graph, nodes

    threads: list[str] = []

    def recorded(route):
        def route_in_thread(state):
            threads.append(threading.current_thread().name)
            return route(state)

        return route_in_thread

    monkeypatch.setattr(graph, "route_entry", recorded(graph.route_entry))
    monkeypatch.setattr(nodes, "route_after_evaluation", recorded(nodes.route_after_evaluation))
    async with tutor(TutorScript(["partial"])) as t:
        await t.turn()
        events = await t.turn("1/2")
        assert nodes_run(events) == ["evaluator", "executor"]
    assert len(threads) == 3 and set(threads) == {threading.main_thread().name}
