"""checkMinSectionLength: empty sections fail, short ones are flagged to the judge."""

from __future__ import annotations

import re

from core.flows.lesson.heuristics.parse import ParsedLesson, Section
from core.flows.lesson.heuristics.result import CheckResult, Finding, HeuristicAction
from core.flows.lesson.heuristics.scripts import HAN_CHAR, KANA_CHAR

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def word_count(text: str) -> int:
    """Words, with two CJK characters counted as one word."""
    cjk = len(HAN_CHAR.findall(text)) + len(KANA_CHAR.findall(text))
    if not cjk:
        return len(WORD.findall(text))
    rest = HAN_CHAR.sub(" ", KANA_CHAR.sub(" ", text))
    return len(WORD.findall(rest)) + cjk // 2


def _section_words(section: Section) -> int:
    """Words of the section: its prose, code and formulas (not its sub-headings)."""
    return sum(
        word_count(b.text if b.kind in ("code", "formula", "table") else b.prose)
        for b in section.blocks
        if b.kind not in ("heading", "rule")
    )


def check_min_section_length(lesson: ParsedLesson, min_words: int = 50) -> CheckResult:
    """Empty sections FAIL (PARTIAL_REGEN); sections under `min_words` WARN (flag to judge).
    A last section with nothing under its heading is a cut (`truncation`), not counted here."""
    findings: list[Finding] = []
    sections = lesson.body_sections()
    shortest = None
    for n, section in enumerate(sections):
        words = _section_words(section)
        shortest = words if shortest is None else min(shortest, words)
        if words == 0 and n == len(sections) - 1 and section.title:
            continue
        if words == 0:
            findings.append(
                Finding(
                    section=section.title,
                    line=section.line_no,
                    message="empty section",
                    action=HeuristicAction.PARTIAL_REGEN,
                )
            )
        elif words < min_words:
            findings.append(
                Finding(
                    section=section.title,
                    line=section.line_no,
                    message=f"{words} words (< {min_words})",
                    action=HeuristicAction.FLAG_TO_JUDGE,
                )
            )
    return CheckResult.of("min_section_length", findings, shortest_section_words=shortest or 0)
