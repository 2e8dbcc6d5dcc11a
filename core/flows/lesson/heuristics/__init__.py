"""The free checks run on every lesson before any model sees it.

`run_heuristics(body, language)` parses the lesson once and runs every check; the report's
`action` is the worst action of the spec's table (see `result`). The checks match shapes
(brackets, positions, block endings, scripts), not phrases; the few words they need are closed
classes documented in `lexicon` and `voice`. Notation (code, LaTeX, URLs) is set apart by the
parser and `notation` before the language and ending checks read the text.
"""

from __future__ import annotations

import time

from core.flows.lesson.heuristics.chatter import check_chatbot_artifacts, strip_chatter
from core.flows.lesson.heuristics.content import check_min_section_length, word_count
from core.flows.lesson.heuristics.language import check_language_consistency
from core.flows.lesson.heuristics.parse import ParsedLesson, parse_lesson
from core.flows.lesson.heuristics.placeholders import check_placeholders
from core.flows.lesson.heuristics.result import (
    CheckResult,
    CheckStatus,
    Finding,
    HeuristicAction,
    HeuristicReport,
)
from core.flows.lesson.heuristics.truncation import check_content_truncation

__all__ = [
    "CheckResult",
    "CheckStatus",
    "Finding",
    "HeuristicAction",
    "HeuristicReport",
    "ParsedLesson",
    "check_chatbot_artifacts",
    "check_content_truncation",
    "check_language_consistency",
    "check_min_section_length",
    "check_placeholders",
    "parse_lesson",
    "run_heuristics",
    "strip_chatter",
    "word_count",
]


def run_heuristics(body: str, language: str, *, min_section_words: int = 50) -> HeuristicReport:
    """Every free check on a lesson body (markdown without frontmatter)."""
    start = time.perf_counter()
    lesson = parse_lesson(body)
    checks = [
        check_language_consistency(lesson, language),
        check_content_truncation(lesson, language),
        check_min_section_length(lesson, min_section_words),
        check_placeholders(lesson, language),
        check_chatbot_artifacts(lesson, language),
    ]
    return HeuristicReport(checks=checks, duration_ms=(time.perf_counter() - start) * 1000)
