"""Benchmark: the self-reviewer as the second line, on the independent lesson corpus.

The self-review runs as the lesson flow runs it: the real prompt and bounded schema
(`review_nodes._ask_reviewer`), then code's decision over the model's answer
(`selfreview.decide`). A lesson counts as caught when the decision does not pass it
(REGENERATE, FIXED or FLAG_TO_JUDGE). Measured:

1. the second line proper: defective lessons with a defect the free checks miss;
2. every defective lesson as if the free checks had found nothing (what the reviewer alone
   catches), and clean lessons (its false alarms), per defect family;

with three reviewers, in the same run:
- `pass`: a scripted model that always answers PASS (the floor: the flow adds nothing);
- `oracle`: a scripted model that answers from the corpus labels (REGENERATE for a cut,
  placeholder, drift or empty section, FIXED with the chatter removed): what the flow makes of
  a reviewer that is always right;
- `local`: the real local model (llama.cpp + Gemma 3 270M), on a sample (`--local N` lessons
  per family and N clean ones; 0 skips it). Its calls take seconds each on two cores.

The last line printed is one JSON object with the figures.

    .venv/bin/python bench/lesson_selfreview.py [--local 1] [--max-tokens 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.flows.lesson.heuristics import HeuristicReport, run_heuristics  # noqa: E402
from core.flows.lesson.review_nodes import _ask_reviewer  # noqa: E402
from core.flows.lesson.selfreview import decide  # noqa: E402
from core.settings.flows import LessonSettings  # noqa: E402
from local_llm import LLMClient  # noqa: E402
from local_llm.testing import scripted_client  # noqa: E402
from tests.flows.lesson.corpus_scoring import caught  # noqa: E402
from tests.flows.lesson.lesson_corpus import FAMILIES, CorpusLesson, load_corpus  # noqa: E402

ISSUE_TYPE = {
    "placeholder": "EMPTY",
    "truncation": "TRUNCATION",
    "language_drift": "LANGUAGE",
    "empty_section": "EMPTY",
    "chatter": "HYGIENE",
}


class Oracle:
    """A scripted self-reviewer that knows the labels of the lesson under review."""

    def __init__(self) -> None:
        self.lesson: CorpusLesson | None = None

    def __call__(self, messages, schema):
        lesson = self.lesson
        if lesson is None or lesson.clean:
            return {
                "status": "PASS",
                "reasoning": "No problem found.",
                "issues": [],
                "patched_content": "",
            }
        defect = lesson.defects[0]
        issue = {
            "type": ISSUE_TYPE[defect.type],
            "severity": "CRITICAL",
            "location": (defect.section or lesson.file)[:120],
            "description": f"{defect.type}: {defect.excerpt}"[:300],
        }
        if defect.type == "chatter":
            return {
                "status": "FIXED",
                "reasoning": "Assistant talk removed.",
                "issues": [{**issue, "severity": "FIXABLE"}],
                "patched_content": _without_block(lesson.lines, defect.line),
            }
        return {
            "status": "REGENERATE",
            "reasoning": f"The lesson has a {defect.type}.",
            "issues": [issue],
            "patched_content": "",
        }


def _without_block(lines: list[str], line: int) -> str:
    """The lesson without the paragraph holding 1-based `line`."""
    start = end = line - 1
    while start > 0 and lines[start - 1].strip():
        start -= 1
    while end + 1 < len(lines) and lines[end + 1].strip():
        end += 1
    return "\n".join(lines[:start] + lines[end + 1 :]).strip() + "\n"


async def review(
    lesson: CorpusLesson, llm: LLMClient, report: HeuristicReport, settings: LessonSettings
) -> tuple[bool, str, float]:
    """(caught, decision, seconds) of one self-review as the flow runs it."""
    runtime = SimpleNamespace(
        context=SimpleNamespace(
            llm=llm, settings=SimpleNamespace(flows=SimpleNamespace(lesson=settings))
        )
    )
    state = {
        "lesson": lesson.body,
        "language": lesson.language,
        "objectives": [],
        "source_text": "",
    }
    started = time.perf_counter()
    answer, why = await _ask_reviewer(state, runtime, report)
    result = decide(
        report,
        answer,
        lesson.body,
        lesson.language,
        can_fix=True,
        min_words=settings.min_section_words,
        not_reviewed=why,
    )
    return not result.passed, str(result.decision), time.perf_counter() - started


def residual(lessons: list[CorpusLesson]) -> list[tuple[CorpusLesson, HeuristicReport]]:
    """Defective lessons with a defect the free checks miss, and the checks' report."""
    out = []
    for lesson in lessons:
        if lesson.clean:
            continue
        report = run_heuristics(lesson.body, lesson.language)
        if not all(caught(report, lesson, d) for d in lesson.defects):
            out.append((lesson, report))
    return out


async def measure(
    name: str,
    lessons: list[CorpusLesson],
    llm: LLMClient,
    settings: LessonSettings,
    missed: list[tuple[CorpusLesson, HeuristicReport]],
    oracle: Oracle | None = None,
) -> dict[str, object]:
    """The second line on the lessons the checks miss; alone on every given lesson."""
    figures: dict[str, object] = {}
    second = [await _one(lesson, llm, report, settings, oracle) for lesson, report in missed]
    figures["second_line_caught"] = f"{sum(c for c, _, _ in second)}/{len(second)}"
    found, total, decisions, false_alarms, clean, seconds = (
        Counter(),
        Counter(),
        Counter(),
        0,
        0,
        [],
    )
    for lesson in lessons:
        hit, decision, spent = await _one(lesson, llm, HeuristicReport(checks=[]), settings, oracle)
        decisions[decision] += 1
        seconds.append(spent)
        if lesson.clean:
            clean += 1
            false_alarms += hit
            continue
        family = lesson.defects[0].type
        total[family] += 1
        found[family] += hit
    figures["alone_caught"] = {f: f"{found[f]}/{total[f]}" for f in FAMILIES if total[f]}
    figures["alone_false_alarms"] = f"{false_alarms}/{clean}"
    figures["decisions"] = dict(decisions)
    figures["seconds_per_review"] = round(sum(seconds) / max(len(seconds), 1), 3)
    print(
        f"{name}: second line {figures['second_line_caught']}; alone "
        + ", ".join(f"{k} {v}" for k, v in figures["alone_caught"].items())  # type: ignore[union-attr]
        + f"; false alarms on clean {figures['alone_false_alarms']}; decisions {dict(decisions)}; "
        f"{figures['seconds_per_review']} s per review"
    )
    return figures


async def _one(lesson, llm, report, settings, oracle):
    if oracle is not None:
        oracle.lesson = lesson
    return await review(lesson, llm, report, settings)


def sample(lessons: list[CorpusLesson], per_family: int) -> list[CorpusLesson]:
    """`per_family` defective lessons of each family and as many clean ones, languages mixed."""
    picked: list[CorpusLesson] = []
    for family in (*FAMILIES, None):
        pool = [
            x
            for x in lessons
            if (x.clean if family is None else not x.clean and x.defects[0].type == family)
        ]
        step = max(1, len(pool) // max(per_family, 1))
        picked += pool[::step][:per_family]
    return picked


async def local_figures(
    lessons: list[CorpusLesson], per_family: int, max_tokens: int, settings: LessonSettings, missed
) -> dict[str, object]:
    from local_llm.local_server import LocalServer

    with LocalServer("chat", ctx_size=4096) as server:
        config = server.model_config(max_tokens=max_tokens, retries=1, timeout_s=180.0)
        llm = LLMClient({"default": config})
        picked = sample(lessons, per_family)
        return await measure("local (Gemma 3 270M)", picked, llm, settings, missed)


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    lessons = load_corpus()
    settings = LessonSettings()
    always_pass = scripted_client(
        lambda messages, schema: {
            "status": "PASS",
            "reasoning": "fine",
            "issues": [],
            "patched_content": "",
        }
    )
    oracle = Oracle()
    oracle_llm = scripted_client(oracle)
    missed = residual(lessons)
    print(f"lessons with a defect the free checks miss: {[x.file for x, _ in missed]}")
    result = {
        "lessons": len(lessons),
        "pass": await measure("scripted PASS", lessons, always_pass, settings, missed),
        "oracle": await measure("scripted oracle", lessons, oracle_llm, settings, missed, oracle),
    }
    if args.local:
        result["local"] = await local_figures(
            lessons, args.local, args.max_tokens, settings, missed
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", type=int, default=1, help="lessons per family (0: skip)")
    parser.add_argument("--max-tokens", type=int, default=200)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args)), ensure_ascii=False))


if __name__ == "__main__":
    main()
