"""checkContentTruncation: signs that generation stopped before the lesson was finished."""

from __future__ import annotations

import re

from core.flows.lesson.heuristics.parse import INLINE_CODE, LIST_ITEM, Block, ParsedLesson
from core.flows.lesson.heuristics.result import (
    CheckResult,
    CheckStatus,
    Finding,
    HeuristicAction,
)

TERMINAL = set(".!?。！？…؟।")
CLOSERS = "\"')]}*_»”’」』`"
LIST_BAD_END = set(",;:(-–—")
UNCLOSED_LINK = re.compile(r"\]\([^)\s]*$|\[\[[^\]]*$")
OPEN_BRACKET_AT_END = re.compile(r"\[[^\]]*$")


def _ends_sentence(text: str) -> bool:
    stripped = text.rstrip().rstrip(CLOSERS).rstrip()
    return bool(stripped) and stripped[-1] in TERMINAL


def _items_end_sentences(block: Block) -> bool:
    """Whether the list's other items end with a full stop (or it has only one item)."""
    items = [ln for ln in block.lines[:-1] if LIST_ITEM.match(ln)]
    return not items or all(_ends_sentence(LIST_ITEM.sub("", ln, count=1)) for ln in items)


def _last_block_signs(block: Block) -> list[str]:
    """Why the lesson's last block looks cut off."""
    last_line = block.lines[-1].strip()
    if block.kind == "heading":
        return ["the lesson ends with a heading"]
    if block.kind == "list":
        item = LIST_ITEM.sub("", last_line, count=1).strip()
        if not item:
            return ["dangling empty list item at the end"]
        if item[-1] in LIST_BAD_END:
            return ["last list item breaks off"]
        return (
            []
            if _ends_sentence(item) or not _items_end_sentences(block)
            else ["last list item ends mid-sentence"]
        )
    if block.kind in ("paragraph", "quote"):
        text = INLINE_CODE.sub("x", block.text)
        signs = [] if _ends_sentence(text) else ["last section ends mid-sentence"]
        if OPEN_BRACKET_AT_END.search(text):
            signs.append("unclosed link or bracket at the end")
        return signs
    return []


def _markup_signs(block: Block) -> list[str]:
    """Unclosed emphasis, inline code or links in one prose block."""
    signs: list[str] = []
    raw = block.text
    if raw.count("`") % 2:
        signs.append("unclosed inline code")
    text = INLINE_CODE.sub(" ", raw)
    if text.count("**") % 2:
        signs.append("unclosed bold")
    if any(UNCLOSED_LINK.search(line) for line in text.splitlines()):
        signs.append("unclosed link")
    if block.kind == "list" and any(
        not LIST_ITEM.sub("", ln, count=1).strip() for ln in block.lines
    ):
        signs.append("dangling empty list item")
    return signs


def check_content_truncation(lesson: ParsedLesson) -> CheckResult:
    """The spec's checks (last section ends mid-sentence, unclosed fence) and dangling list
    items, unclosed emphasis or links. One sign: PARTIAL_REGEN; several: REGENERATE."""
    findings: list[Finding] = []
    sections = lesson.body_sections()
    for section in lesson.sections:
        for block in section.blocks:
            if block.kind == "code":
                if not block.closed:
                    findings.append(
                        Finding(
                            section=section.title, line=block.line_no, message="unclosed code fence"
                        )
                    )
                continue
            for sign in _markup_signs(block):
                findings.append(
                    Finding(
                        section=section.title,
                        line=block.line_no,
                        message=sign,
                        sample=block.lines[-1][-60:],
                    )
                )
    last = sections[-1] if sections else None
    if last is None or not last.blocks:
        findings.append(
            Finding(section=last.title if last else "", message="the last section is empty")
        )
    elif last.blocks[-1].kind != "code":
        block = last.blocks[-1]
        for sign in _last_block_signs(block):
            findings.append(
                Finding(
                    section=last.title,
                    line=block.line_no + len(block.lines) - 1,
                    message=sign,
                    sample=block.lines[-1][-60:],
                )
            )
    result = CheckResult(
        name="content_truncation", findings=findings, metrics={"signs": len(findings)}
    )
    if findings:
        result.status = CheckStatus.FAIL
        several = len({f.message for f in findings}) > 1
        result.action = HeuristicAction.REGENERATE if several else HeuristicAction.PARTIAL_REGEN
    return result
