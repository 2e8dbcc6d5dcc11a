"""checkLanguageConsistency: passages in another language, and stray foreign letters.

Read on the writer's own prose (paragraphs and lists, `notation.own_voice`): code, formulas,
URLs, tables, quotations and italic terms are what lessons legitimately hold in other
languages and scripts, so they are removed first.

- A passage in another script (three words or more, six CJK characters or more; in a
  non-Latin lesson, six Latin words in a row): REGENERATE.
- A paragraph in another language of the same script (lingua for Latin and Cyrillic, kana
  for Chinese and Japanese; see `detect`): REGENERATE.
- Up to `STRAY_MAX` foreign letters glued into the text, or a lone CJK character or two (a
  generation glitch, `задачу的`): SELF_FIX, code removes them. A short foreign term standing
  as a word of its own (`le Tao (道)`, `спутник`) is a citation and is left alone.
"""

from __future__ import annotations

import re

from core.flows.lesson.heuristics.detect import TECH_TOKEN, paragraph_language
from core.flows.lesson.heuristics.parse import Block, ParsedLesson
from core.flows.lesson.heuristics.result import CheckResult, Finding, HeuristicAction
from core.flows.lesson.heuristics.scripts import (
    HAN_CHAR,
    KANA_CHAR,
    LATIN_LANGUAGES,
    base_language,
    foreign_runs,
    longest_latin_run,
)

STRAY_MAX = 3
"""Up to this many foreign letters in a block is isolated pollution (self-fixable)."""
PASSAGE_WORDS = 3
PASSAGE_CJK = 6
LATIN_RUN_MIN = 6
"""A non-Latin lesson writes Latin technical terms, not sentences: a run this long is one."""
READ = ("paragraph", "list")
LONG_WORD = re.compile(r"[^\W\d_]{3,}")
ITEM_WORDS = 6
"""A list item this long is a sentence; shorter ones are names, terms or notation."""


def _cjk(run: str) -> int:
    return len(HAN_CHAR.findall(run)) + len(KANA_CHAR.findall(run))


def _script_findings(text: str, lang: str, section: str, line: int) -> list[Finding]:
    """Passages and stray letters of another script in one block."""
    findings: list[Finding] = []
    stray = ""
    for run, glued in foreign_runs(text, lang):
        cjk = _cjk(run)
        if cjk >= PASSAGE_CJK or (not cjk and len(run.split()) >= PASSAGE_WORDS):
            findings.append(Finding(section=section, line=line, sample=run[:60],
                                    message=f"a passage in another script ({lang} lesson)",
                                    action=HeuristicAction.REGENERATE))  # fmt: skip
        elif glued or 0 < cjk <= 2:
            stray += run
    if stray:
        action = HeuristicAction.SELF_FIX if len(stray) <= STRAY_MAX else HeuristicAction.REGENERATE
        findings.append(Finding(section=section, line=line, sample=stray[:20], action=action,
                                message=f"{len(stray)} stray letters of a script not used in {lang}"))  # fmt: skip
    if lang not in LATIN_LANGUAGES:
        run, words = longest_latin_run(TECH_TOKEN.sub(" ", text))
        if run >= LATIN_RUN_MIN:
            findings.append(Finding(section=section, line=line, sample=words[:60],
                                    message=f"a Latin-script sentence in a {lang} lesson",
                                    action=HeuristicAction.REGENERATE))  # fmt: skip
    return findings


def _drift(text: str, lang: str, section: str, block: Block) -> Finding | None:
    found = paragraph_language(text, lang)
    if found is None:
        return None
    code, confidence = found
    return Finding(section=section, line=block.line_no, sample=text.strip()[:60],
                   message=f"paragraph written in {code} (confidence {confidence:.2f}), "
                           f"lesson is {lang}",
                   action=HeuristicAction.REGENERATE)  # fmt: skip


def check_language_consistency(lesson: ParsedLesson, language: str) -> CheckResult:
    """Passages in another language or script (REGENERATE), stray letters (SELF_FIX)."""
    lang = base_language(language)
    findings: list[Finding] = []
    paragraphs = 0
    for section in lesson.sections:
        for block in section.blocks:
            if block.kind not in READ:
                continue
            text = block.voice
            findings += _script_findings(text, lang, section.title, block.line_no)
            if block.kind == "list":  # only the items that are sentences, not notation or names
                text = "\n".join(i for i in text.splitlines() if len(LONG_WORD.findall(i)) >= ITEM_WORDS)
            if drift := _drift(text, lang, section.title, block):
                paragraphs += 1
                findings.append(drift)
    foreign = sum(len(f.sample) for f in findings if "stray" in f.message or "script" in f.message)
    return CheckResult.of("language_consistency", findings, foreign_characters=foreign,
                          foreign_paragraphs=paragraphs)  # fmt: skip
