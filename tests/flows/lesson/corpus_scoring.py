"""Scoring the free checks against the independent corpus's labels.

A labelled defect counts as caught only when the check of its family acts on it AND one of
that check's acting findings lies on the defect (its block, give or take a line): a check that
fires somewhere else in the lesson does not count. A clean lesson is a blocking false positive
when any check asks for a regeneration; a self-fix on it (code would cut a sentence) is counted
apart. Used by `bench/lesson_review.py`, `bench/lesson_selfreview.py` and the tests.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from core.flows.lesson.heuristics import HeuristicAction, HeuristicReport, run_heuristics
from tests.flows.lesson.lesson_corpus import FAMILIES, CorpusLesson, Defect

FAMILY_CHECK = {
    "placeholder": "placeholders",
    "chatter": "chatbot_artifacts",
    "truncation": "content_truncation",
    "language_drift": "language_consistency",
    "empty_section": "min_section_length",
}
BLOCKING = frozenset({HeuristicAction.REGENERATE, HeuristicAction.PARTIAL_REGEN})
ACTING = BLOCKING | {HeuristicAction.SELF_FIX}
NEAR = 2
"""Lines of slack around the labelled block (a label's line and a finding's line may name
different ends of the same cut formula or code block)."""


def block_span(lines: list[str], line: int) -> tuple[int, int]:
    """1-based first and last line of the run of non-blank lines holding `line`."""
    start = end = line
    while start > 1 and lines[start - 2].strip():
        start -= 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return start, end


def acting_findings(report: HeuristicReport, family: str) -> list[int]:
    """1-based lines of the findings by which the family's check acts (-1: no line)."""
    check = report.check(FAMILY_CHECK[family])
    if check.action not in ACTING:
        return []
    return [f.line + 1 if f.line >= 0 else -1 for f in check.findings if f.acts]


def caught(report: HeuristicReport, lesson: CorpusLesson, defect: Defect) -> bool:
    """Whether the family's check acts on this defect, at its place."""
    start, end = block_span(lesson.lines, defect.line)
    return any(start - NEAR <= line <= end + NEAR for line in acting_findings(report, defect.type))


@dataclass
class Scores:
    """Counts over a corpus: defects caught per family and language, false positives, times."""

    found: Counter[tuple[str, str]] = field(default_factory=Counter)
    total: Counter[tuple[str, str]] = field(default_factory=Counter)
    clean: int = 0
    hard: int = 0
    fp_blocking: list[str] = field(default_factory=list)
    fp_blocking_hard: list[str] = field(default_factory=list)
    fp_self_fix: list[str] = field(default_factory=list)
    missed: list[tuple[CorpusLesson, Defect]] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)
    reports: dict[str, HeuristicReport] = field(default_factory=dict)

    def recall(self, family: str, language: str | None = None) -> float | None:
        keys = [k for k in self.total if k[0] == family and language in (None, k[1])]
        total = sum(self.total[k] for k in keys)
        return sum(self.found[k] for k in keys) / total if total else None

    def families(self) -> list[str]:
        return [f for f in FAMILIES if any(k[0] == f for k in self.total)]

    def languages(self) -> list[str]:
        return sorted({k[1] for k in self.total})


def score(lessons: list[CorpusLesson], min_words: int = 50) -> Scores:
    """Run every check on every lesson and count against the labels."""
    scores = Scores()
    for lesson in lessons:
        start, cpu = time.perf_counter(), time.process_time()
        report = run_heuristics(lesson.body, lesson.language, min_section_words=min_words)
        scores.cpu_ms.append((time.process_time() - cpu) * 1000)
        scores.wall_ms.append((time.perf_counter() - start) * 1000)
        scores.reports[lesson.file] = report
        if lesson.clean:
            scores.clean += 1
            scores.hard += lesson.hard_negative
            if report.action in BLOCKING:
                scores.fp_blocking.append(lesson.file)
                if lesson.hard_negative:
                    scores.fp_blocking_hard.append(lesson.file)
            elif report.action == HeuristicAction.SELF_FIX:
                scores.fp_self_fix.append(lesson.file)
            continue
        for defect in lesson.defects:
            key = (defect.type, lesson.language)
            scores.total[key] += 1
            if caught(report, lesson, defect):
                scores.found[key] += 1
            else:
                scores.missed.append((lesson, defect))
    return scores
