"""checkLanguageConsistency: foreign scripts, long Latin runs, paragraphs in another language."""

from __future__ import annotations

from core.flows.lesson.heuristics.detect import paragraph_language
from core.flows.lesson.heuristics.parse import ParsedLesson, prose_of
from core.flows.lesson.heuristics.result import (
    CheckResult,
    CheckStatus,
    Finding,
    HeuristicAction,
)
from core.flows.lesson.heuristics.scripts import (
    HAN_CHAR,
    KANA_CHAR,
    LATIN_LANGUAGES,
    base_language,
    foreign_letters,
    longest_latin_run,
)

STRAY_MAX = 3
"""Up to this many foreign letters is isolated pollution (self-fixable); more regenerates."""
LATIN_RUN_MAX = 6
"""A non-Latin lesson may hold Latin technical terms, not sentences: longer runs are foreign."""
HAN_ONLY_MIN = 20
"""A Japanese paragraph of this many Han characters and no kana is Chinese."""


def _scan_block(text: str, lang: str, section: str, line: int) -> tuple[int, list[Finding]]:
    """Foreign letters and foreign passages of one prose block."""
    findings: list[Finding] = []
    foreign = foreign_letters(lang).findall(text)
    count = len(foreign)
    if foreign:
        findings.append(
            Finding(
                section=section,
                line=line,
                message=f"{len(foreign)} letters of a script not used in {lang}",
                sample="".join(foreign[:5]),
            )
        )
    if lang not in LATIN_LANGUAGES:
        run, words = longest_latin_run(text)
        if run > LATIN_RUN_MAX:
            count += sum(len(w) for w in words.split())
            findings.append(
                Finding(
                    section=section,
                    line=line,
                    message=f"Latin-script sentence in a {lang} lesson",
                    sample=words[:60],
                )
            )
    if lang == "ja" and len(HAN_CHAR.findall(text)) >= HAN_ONLY_MIN and not KANA_CHAR.search(text):
        count += len(HAN_CHAR.findall(text))
        findings.append(
            Finding(
                section=section,
                line=line,
                message="paragraph without kana (Chinese?)",
                sample=text[:30],
            )
        )
    return count, findings


def _detect_block(text: str, lang: str, section: str, line: int) -> Finding | None:
    if lang not in LATIN_LANGUAGES:
        return None
    found = paragraph_language(text, lang)
    if found is None:
        return None
    code, confidence = found
    return Finding(
        section=section,
        line=line,
        message=f"paragraph written in {code} (confidence {confidence:.2f}), lesson is {lang}",
        sample=text[:60],
    )


def check_language_consistency(lesson: ParsedLesson, language: str) -> CheckResult:
    """Foreign-script letters (code skipped), Latin sentences in non-Latin lessons, and
    whole paragraphs in another same-script language."""
    lang = base_language(language)
    foreign = 0
    paragraphs = 0
    findings: list[Finding] = []
    for section in lesson.sections:
        for block in section.blocks:
            if block.kind == "code":
                continue
            text = prose_of(block)
            count, found = _scan_block(text, lang, section.title, block.line_no)
            foreign += count
            findings.extend(found)
            if block.kind in ("paragraph", "quote") and (
                other := _detect_block(text, lang, section.title, block.line_no)
            ):
                paragraphs += 1
                findings.append(other)
    result = CheckResult(
        name="language_consistency",
        findings=findings,
        metrics={"foreign_characters": foreign, "foreign_paragraphs": paragraphs},
    )
    if paragraphs or foreign > STRAY_MAX:
        result.status, result.action = CheckStatus.FAIL, HeuristicAction.REGENERATE
    elif foreign:
        result.status, result.action = CheckStatus.WARN, HeuristicAction.SELF_FIX
    return result
