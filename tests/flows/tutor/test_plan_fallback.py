"""Issue 12: with the bundled model the planner wrote field names as values on every re-ask and
the tutor never started. An unusable plan now gives way to a plan built from the concept (said
to the learner and in the log); a model that does not answer still fails the turn."""

from __future__ import annotations

from core.events import Done, Failed, Progress
from core.flows.tutor.fallback_plan import fallback_draft
from core.flows.tutor.prompts import GroundedPlanDraft, plan_schema
from core.flows.tutor.session import turn
from local_llm.errors import TransientModelError
from local_llm.schema import validate_bounded
from tests.flows.tutor.scripted import TutorScript


class FieldNamePlans(TutorScript):
    """A planner that writes the schema's field names as every step's texts (Gemma 3 270M in
    the walk), from plan number `from_plan` on; `down` makes it raise a refused connection."""

    def __init__(self, verdicts=(), *, from_plan: int = 1, down: bool = False, **kwargs) -> None:
        super().__init__(verdicts, **kwargs)
        self.from_plan, self.down = from_plan, down

    def plan(self, schema):
        if self.down:
            self.plans += 1
            raise TransientModelError("Connection refused", status_code=None)
        answer = super().plan(schema)
        if self.plans < self.from_plan:
            return answer
        count = len(answer["titles"])
        return answer | {
            "titles": ["title"] * count,
            "descriptions": ["description"] * count,
            "teaching_approaches": ["teaching_approach"] * count,
        }


def notices(events) -> list[str]:
    return [e.data["notice"] for e in events if isinstance(e, Progress) and e.data.get("notice")]


async def test_a_planner_that_never_answers_validly_starts_the_session_from_the_concept(
    tutor,
) -> None:
    async with tutor(FieldNamePlans()) as t:
        events = await t.turn()
        state = await t.values()
        assert t.script.plans == 3  # asked, re-asked twice (models.retries = 2), then code's plan
        todo = state["study_plan"]["todo_list"]
        assert [s["title"] for s in todo] == [
            "Recall: Fractions",
            "Explain: Fractions",
            "Apply: Fractions",
        ]
        assert all("title" not in s["description"] for s in todo)
        assert notices(events) == ["The model's plan was unusable: a plan built from the concept."]
        [log] = [e for e in state["agent_logs"] if e["agent"] == "planner"]
        assert log["reasoning"].startswith("built from the concept: the model's plan was unusable")
        assert "gave no valid answer" in log["reasoning"]
        assert state["conversation"][-1]["kind"] == "teaching"  # the tutor started


async def test_a_planner_model_that_is_down_still_fails_the_turn(tutor) -> None:
    async with tutor(FieldNamePlans(down=True)) as t:
        events = [e async for e in turn(t.services.runtime, t.session_id, None)]
        assert isinstance(events[-1], Failed) and "Connection refused" in events[-1].error
        assert not notices(events)
        assert not (await t.values()).get("study_plan")


async def test_a_replan_with_unusable_answers_keeps_the_current_plan(tutor) -> None:
    async with tutor(FieldNamePlans(["wrong"] * 3, from_plan=2)) as t:
        await t.turn()
        before = (await t.values())["study_plan"]["todo_list"]
        await t.turn("1/4")
        await t.turn("1/4 again")
        events = [e async for e in turn(t.services.runtime, t.session_id, "still 1/4")]
        assert isinstance(events[-1], Done), events[-1]  # the third failure asks for a replan
        state = await t.values()
        assert t.script.plans == 4  # the first plan, then the replan asked three times
        todo = state["study_plan"]["todo_list"]
        assert [s["step_id"] for s in todo] == [s["step_id"] for s in before]
        assert todo[0]["status"] == "in_progress"  # the blocked step is taught again
        assert state["study_plan"]["metadata"]["replan_count"] == 1
        assert notices(events) == ["The model's new plan was unusable: the current plan goes on."]
        assert state["conversation"][-1]["kind"] == "teaching"


def test_the_plan_from_concepts_is_valid_in_the_learners_language() -> None:
    """Concept titles as a vault has them (accents, emoji, another script, a very long one)."""
    one = fallback_draft({"title": "Metacognición 🧠", "concepts": []}, "es")
    assert one.titles == [
        "Recordar: Metacognición 🧠",
        "Explicar: Metacognición 🧠",
        "Aplicar: Metacognición 🧠",
    ]
    two = fallback_draft(
        {
            "title": "T",
            "concepts": [{"id": "a", "title": "Ἀρετή"}, {"id": "b", "title": "Φρόνησις"}],
        },
        "en",
    )
    assert len(two.titles) == 3 and "Ἀρετή + Φρόνησις" in two.descriptions[2]
    many = [{"id": str(i), "title": f"Concepto número {i} " + "x" * 80} for i in range(7)]
    four = fallback_draft({"title": "T", "concepts": many}, "pt-BR")  # a plan's most steps
    assert len(four.titles) == 4 and four.titles[0].startswith("Explain: Concepto número 0")
    for draft in (one, two, four):  # what the client checks on a model's plan, and its schema
        GroundedPlanDraft.model_validate(draft.model_dump())
        assert not validate_bounded(draft.model_dump(), plan_schema(replan=False))
