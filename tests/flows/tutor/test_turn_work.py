"""What a tutor turn does once that it need not do on every turn, counted (bench/tutor.py
measures the time; these say the work is gone)."""

from __future__ import annotations

from typing import Any

from tests.flows.tutor.scripted import TutorScript


def record_schemas(t: Any) -> list[type]:
    """The answer classes the turns hand to the model client, in order."""
    given: list[type] = []
    structured = t.services.llm.structured

    async def recording(messages, schema, **kwargs):
        given.append(schema)
        return await structured(messages, schema, **kwargs)

    t.services.llm.structured = recording
    return given


async def test_the_evaluators_answer_class_is_built_once_not_every_turn(tutor) -> None:
    """A pydantic class was built for every learner's answer (its check reads the answer):
    about 1 ms of every turn. One class now, and each turn's check still reads its own answer."""

    class Parrot(TutorScript):
        """Hands the learner's answer back from the third answer on."""

        answered = 0

        def evaluate(self):
            self.answered += 1
            answer = super().evaluate()
            if self.answered >= 3:  # and every re-ask of it
                answer |= {"feedback": "la fracción de arriba"}
            return answer

    async with tutor(Parrot(["partial"] * 8), correct_to_complete=10) as t:
        given = record_schemas(t)
        await t.turn()
        for text in ("un medio", "dos cuartos", "la fracción de arriba, creo"):
            await t.turn(text)
        evaluators = [s for s in given if s.__name__ == "EvaluatorAnswer"]
        assert len(evaluators) == 3
        assert len(set(evaluators)) == 1
        values = await t.values()
        assert "not_evaluated" in values["last_evaluation"]  # the third, handed back: refused
        asked_again = [c for c in t.backend.calls if "repeats the learner's answer" in str(c)]
        assert asked_again  # the re-ask named the problem the check found in the third answer
