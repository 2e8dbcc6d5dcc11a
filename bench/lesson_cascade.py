"""Benchmark: the lesson review's judge cascade, on a generated corpus with scripted models.

Judge tokens spent by the cascade (heuristics -> self-review -> one judge, a second and a third
only when needed) against judging every lesson fully with three judges, with scripted models
that account tokens. Run by `bench/lesson_review.py` (its figures are in that script's JSON), or
alone: `python bench/lesson_cascade.py [--per-language N] [--seed S]`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.flows.lesson.corpus import DEFECTS, Sample  # noqa: E402

TARGET_SAVED = 0.50
"""Judge tokens the cascade saves against the full panel (the lesson review's target)."""


def judge_answer(score: float) -> dict[str, object]:
    """A scripted judge's answer: every lesson criterion at `score`, each with its own
    rationale (one rationale for every criterion is a degenerate answer the judge node rejects)."""
    from core.evaluation import load_criteria

    ids = load_criteria("lesson").criteria.ids
    return {
        "criteria": {
            c: {
                "rationale": f"{c.replace('_', ' ').capitalize()} scored against its guideline.",
                "issues": [],
                "score": round(min(1.0, max(0.0, score)), 3),
            }
            for c in ids
        },
        "strengths": ["clear structure"],
        "weaknesses": ["few examples"],
        "suggestions": ["add a worked example"],
        "feedback": "A reasonable lesson.",
    }


class ScriptedReviewers:
    """Self-reviewer and judges answering by prompt. Each lesson has a true quality; each judge
    sees it with its own bias and noise (so judges sometimes disagree)."""

    BIAS = {"judge-a": 0.0, "judge-b": 0.03, "judge-c": -0.02}

    def __init__(self, quality: dict[str, float], seed: int) -> None:
        import random

        self.quality, self.rng, self.backend = quality, random.Random(seed), None

    def __call__(self, messages, schema):
        system = messages[0]["content"]
        if "You review a lesson" in system:
            return {
                "status": "PASS",
                "reasoning": "No problems found.",
                "issues": [],
                "patched_content": "",
            }
        if "You correct one lesson section" in system:  # a targeted fix: the section, tidied
            section = messages[-1]["content"].split("<SECTION>\n", 1)[1].split("\n</SECTION>")[0]
            return {"text": section.split("\n", 1)[1].strip()}
        model = self.backend.calls[-1].config.model
        user = messages[-1]["content"]
        key = next((k for k in self.quality if k in user), "")
        base = self.quality.get(key, 0.7)
        return judge_answer(base + self.BIAS.get(model, 0.0) + self.rng.gauss(0, 0.05))


def cascade_corpus(per_language: int, seed: int) -> list[Sample]:
    """Half clean lessons, half with one planted defect each (every kind, every language)."""
    import random

    from tests.flows.lesson.corpus import LANGUAGES, clean_lesson
    from tests.flows.lesson.corpus_defects import plant

    rng = random.Random(seed)
    samples = []
    for language in LANGUAGES:
        for n in range(per_language):
            body = clean_lesson(language, rng)
            samples.append(Sample(language, body, None))
            defect = DEFECTS[n % len(DEFECTS)]
            samples.append(Sample(language, plant(defect, body, language, rng)[0], defect))
    return samples


async def cascade_figures(per_language: int, seed: int) -> dict[str, object]:
    """Run the lesson flow's review on each lesson (scripted models with token accounting)
    and judge the same lessons with the full panel of three judges: the baseline."""
    import random
    import tempfile

    from core.evaluation import load_criteria
    from core.evaluation.answer import EvaluationAnswer
    from core.evaluation.prompts import build_messages
    from core.flows.lesson.graph import SPEC
    from core.flows.lesson.judging import judge_context
    from core.flows.lesson.traces import savings_report
    from core.services import open_services
    from core.settings import Settings
    from local_llm.testing import ScriptedBackend

    samples = cascade_corpus(per_language, seed)
    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="noema-bench-"))
    root = tmp / "vault"
    (root / "09 - Lessons").mkdir(parents=True)
    quality: dict[str, float] = {}
    for n, sample in enumerate(samples):
        topic = f"Lesson-{n:03d}"
        quality[topic] = (
            rng.uniform(0.55, 0.95) if sample.defect is None else rng.uniform(0.45, 0.8)
        )
        text = f"---\ntopic: {topic}\nlanguage: {sample.language}\n---\n{sample.body}"
        (root / "09 - Lessons" / f"{topic}.md").write_text(text, encoding="utf-8")
    reviewers = ScriptedReviewers(quality, seed)
    backend = ScriptedBackend(reviewers)
    reviewers.backend = backend
    roles = {
        "judge": {"model": "judge-a"},
        "judge_secondary": {"model": "judge-b"},
        "judge_tiebreak": {"model": "judge-c"},
    }
    settings = Settings(
        vault={"path": root},
        data={"directory": tmp / "data"},
        models={"model": "writer", "roles": roles, "embeddings_enabled": False},
        flows={"lesson": {"tiebreak_role": "judge_tiebreak"}},
    )
    services = open_services(settings, {"lesson": SPEC}, backend=backend)
    criteria = load_criteria("lesson").criteria
    baseline = 0
    async with services:
        runtime = services.runtime
        for n, sample in enumerate(samples):
            path = f"09 - Lessons/Lesson-{n:03d}.md"
            run = runtime.start("lesson", {"mode": "review", "note_path": path})
            events = await runtime.run_until_pause(run.id)
            if type(events[-1]).__name__ == "Interrupted":
                events = await runtime.run_until_pause(run.id, {"action": "accept"}, resume=True)
            if type(events[-1]).__name__ != "Done":
                raise RuntimeError(f"lesson run {run.id} did not finish: {events[-1]}")
            context = judge_context({"source_text": f"Topic: Lesson-{n:03d}"})
            messages = build_messages(criteria, sample.body, "lesson", None, context)
            for role in ("judge", "judge_secondary", "judge_tiebreak"):
                await services.llm.structured(
                    messages, EvaluationAnswer, role=role, flow="bench", node="baseline_judge"
                )
        baseline = _baseline_tokens(services.store)
        report = savings_report(services.store)
        self_review = sum(
            r[0]
            for r in services.store.query(
                "SELECT COALESCE(SUM(tokens), 0) FROM lesson_traces WHERE phase = 'self_review'"
            )
        )
    return {
        "lessons": len(samples),
        "report": report,
        "baseline_full_panel": baseline,
        "self_review_tokens": self_review,
    }


def _baseline_tokens(store) -> int:
    row = store.query_one(
        "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM traces"
        " WHERE node = 'baseline_judge'"
    )
    return int(row[0])


def print_cascade(figures: dict[str, object]) -> dict[str, float]:
    report = figures["report"]
    baseline = figures["baseline_full_panel"]
    spent = report["judge_tokens"]
    saved = 1 - spent / baseline if baseline else 0.0
    with_review = 1 - (spent + figures["self_review_tokens"]) / baseline if baseline else 0.0
    print(
        f"cascade (`noema lesson review`, escalations accepted) over {figures['lessons']} "
        "lessons (half clean, half with a planted defect):"
    )
    print(f"  judge calls {report['judges_called']} (full panel: {3 * figures['lessons']})")
    print(
        f"  judge tokens {spent} vs {baseline} judging every lesson with three judges "
        f"(measured): saved {saved:.1%}"
    )
    single = baseline / 3
    print(
        f"  (for reference: one judge on every lesson would spend {single:.0f} tokens; "
        f"the cascade spends {spent / single - 1:+.1%} against that)"
    )
    print(
        f"  counting the self-review's {figures['self_review_tokens']} tokens too: saved {with_review:.1%}"
    )
    print(f"  caught before the judges: {report['caught']}; self-review: {report['self_review']}")
    return {"judge_tokens_saved": saved, "review_tokens_saved": with_review}


def main() -> None:
    import argparse
    import asyncio
    import json

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-language", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    figures = asyncio.run(cascade_figures(args.per_language, args.seed))
    result = {k: round(v, 4) for k, v in print_cascade(figures).items()}
    result["target_judge_tokens_saved"] = TARGET_SAVED
    print(json.dumps(result))


if __name__ == "__main__":
    main()
