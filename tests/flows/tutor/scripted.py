"""A scripted tutor model: answers each agent's prompt from a short script of verdicts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.curriculum import Lesson

VERDICTS = {
    "right": {"score": 1.0, "step_status": "completed", "was_off_topic": False},
    "partial": {"score": 0.8, "step_status": "in_progress", "was_off_topic": False},
    "wrong": {"score": 0.1, "step_status": "in_progress", "was_off_topic": False},
    "offtopic": {"score": 0.0, "step_status": "in_progress", "was_off_topic": True},
}


def lesson() -> Lesson:
    return Lesson(
        title="Fractions",
        guideline="Fractions compare parts of a whole. Use pizzas.",
        source="curriculum",
        path="10 - Curriculum/Math/Numbers/Fractions.md",
        subject="Math",
        topic="Numbers",
        subtopic="Fractions",
        grade="3",
        objectives=["Compare fractions"],
    )


class TutorScript:
    """A responder for ScriptedBackend: plans, questions, and evaluations from `verdicts`."""

    def __init__(
        self,
        verdicts: Iterable[str] = (),
        steps: int = 3,
        replan_on: Iterable[int] = (),
        trigger: str = "approach_not_working",
    ):
        self.verdicts = list(verdicts)
        self.steps = steps
        self.replan_on = set(replan_on)
        """Evaluation numbers (1-based) on which the evaluator asks for a replan."""
        self.trigger = trigger
        """The replan trigger the evaluator names when it asks."""
        self.evaluations = 0
        self.plans = 0
        self.questions = 0

    def __call__(self, messages: list[dict[str, Any]], schema: Any) -> Any:
        system = messages[0]["content"]
        if system.startswith("You are the PLANNER"):
            return self.plan(schema)
        if system.startswith("You are the EVALUATOR"):
            return self.evaluate()
        self.questions += 1
        return f"Question {self.questions}: what is bigger, 1/2 or 1/4?\nHint: count the slices\n"

    def plan(self, schema: Any) -> dict[str, Any]:
        self.plans += 1
        low = schema["properties"]["titles"].get("minItems", 1)
        count = max(low, self.steps if self.plans == 1 else 2)
        numbers = range(1, count + 1)
        return {
            "titles": [f"P{self.plans} step {i}" for i in numbers],
            "descriptions": [f"Learn part {i}" for i in numbers],
            "teaching_approaches": ["pizza slices" for _ in numbers],
            "success_criteria": [f"answers {i} question right" for i in numbers],
        }

    def evaluate(self) -> dict[str, Any]:
        self.evaluations += 1
        verdict = self.verdicts.pop(0) if self.verdicts else "right"
        base = VERDICTS[verdict]
        replan = self.evaluations in self.replan_on
        return {
            "own_answer": "1/2",
            "was_off_topic": base["was_off_topic"],
            "off_topic_response": "Fun! But back to fractions." if base["was_off_topic"] else "",
            "score": base["score"],
            "feedback": f"feedback {self.evaluations} ({verdict})",
            "reasoning": f"reasoning {self.evaluations}",
            "step_status": base["step_status"],
            "assessment_note": f"note {self.evaluations}",
            "misconception": "bigger denominator means bigger" if verdict == "wrong" else "",
            "replan_needed": replan,
            "replan_trigger": self.trigger if replan else "none",
            "replan_reason": "approach not working" if replan else "",
        }


class Writes(TutorScript):
    """A TutorScript whose executor writes `text` (the first message)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __call__(self, messages, schema):
        if messages[0]["content"].startswith(("You are the PLANNER", "You are the EVALUATOR")):
            return super().__call__(messages, schema)
        return self.text
