"""checkContentTruncation: signs that generation stopped before the lesson was finished.

Each section is drafted on its own, so the end of every section is read, not only the
lesson's: its last block must be finished for its kind (see `endings`). A code block or a
display formula that never closes is a cut wherever it is. A lesson that ends on a heading
stopped before that section's text. One sign: PARTIAL_REGEN (the section is rewritten);
several: REGENERATE.
"""

from __future__ import annotations

import re

from core.flows.lesson.heuristics.endings import (
    code_signs,
    formula_signs,
    list_signs,
    prose_signs,
    table_signs,
)
from core.flows.lesson.heuristics.parse import Block, ParsedLesson, Section
from core.flows.lesson.heuristics.placeholders import LABEL
from core.flows.lesson.heuristics.result import CheckResult, Finding, HeuristicAction

DISPLAY_WORDS = 15
LABEL_VALUE = re.compile(r"^[^:：\n]{1,30}[:：]\s*\S[^\n]*$")
"""`Source: Statistisches Bundesamt, 2023`: a label and its value, not a sentence."""
RELATION = re.compile(r"[→⟶⇒⇌⇄↔⟹⟺=≈≡≤≥∝]")
"""A line shown after a colon (`venir → je vins, il vint`) is at most this long."""


def _display(block: Block, previous: Block | None) -> bool:
    """A short line set apart as notation, not prose: after a sentence ending with a colon, or
    written around an arrow or a relation (`Fe₂O₃ + 3CO → 2Fe + 3CO₂`)."""
    if len(block.lines) > 2 or len(block.text.split()) > DISPLAY_WORDS:
        return False
    if RELATION.search(block.text) or LABEL_VALUE.match(block.text):
        return True
    return (
        previous is not None
        and previous.kind in ("paragraph", "list", "quote")
        and (previous.text.rstrip().endswith((":", "：")))
    )


def ending_signs(block: Block, previous: Block | None, language: str) -> list[str]:
    """Why a section's last block looks unfinished ([] when it is finished)."""
    if block.kind == "code":
        return code_signs(block)
    if block.kind == "formula":
        return formula_signs(block)
    if block.kind == "table":
        return table_signs(block)
    if block.kind == "list":
        return list_signs(block, language)
    if block.kind == "heading":
        return ["the section ends with a heading"]
    if block.kind in ("paragraph", "quote"):
        if block.kind == "paragraph" and len(block.lines) <= 2 and LABEL.match(block.lines[-1]):
            return []  # a bare label: the placeholder check's
        return prose_signs(block, language, display=_display(block, previous))
    return []


def _section_end(section: Section, lesson: ParsedLesson, language: str) -> list[Finding]:
    before = set(map(id, lesson.before_title()))
    blocks = [b for b in section.blocks if id(b) not in before and b.kind != "rule"]
    if not blocks:
        return []
    last = blocks[-1]
    previous = blocks[-2] if len(blocks) > 1 else None
    line = last.last_line_no
    if last.kind in ("code", "formula") and last.closed and len(last.lines) > 2:
        line -= 1  # where the text stops, not the closing fence
    return [
        Finding(
            section=section.title,
            line=line,
            message=sign,
            sample=last.lines[-1].strip()[-60:],
            action=HeuristicAction.PARTIAL_REGEN,
        )
        for sign in ending_signs(last, previous, language)
    ]


def check_content_truncation(lesson: ParsedLesson, language: str = "") -> CheckResult:
    """Unclosed code or formulas anywhere, unfinished section ends, a lesson ending on a
    heading. One sign: PARTIAL_REGEN; several: REGENERATE."""
    findings: list[Finding] = []
    ends = {id(s.blocks[-1]) for s in lesson.sections if s.blocks}
    for section in lesson.sections:
        for block in section.blocks:
            if block.kind in ("code", "formula") and not block.closed and id(block) not in ends:
                findings.append(
                    Finding(
                        section=section.title,
                        line=block.last_line_no,
                        message=f"the {block.kind} block is never closed",
                        action=HeuristicAction.PARTIAL_REGEN,
                    )
                )
        findings += _section_end(section, lesson, language)
    named = lesson.body_sections()
    if named and named[-1].title and not named[-1].blocks:
        findings.append(
            Finding(
                section=named[-1].title,
                line=named[-1].line_no,
                message="the lesson ends with a heading",
                action=HeuristicAction.PARTIAL_REGEN,
            )
        )
    if len(findings) > 1:
        for finding in findings:
            finding.action = HeuristicAction.REGENERATE
    return CheckResult.of("content_truncation", findings, signs=len(findings))
