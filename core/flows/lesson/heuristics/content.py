"""checkMinSectionLength, placeholder content and chatbot artifacts."""

from __future__ import annotations

import re

from core.flows.lesson.heuristics.parse import ParsedLesson, Section, prose_of
from core.flows.lesson.heuristics.result import (
    CheckResult,
    CheckStatus,
    Finding,
    HeuristicAction,
)
from core.flows.lesson.heuristics.scripts import HAN_CHAR, KANA_CHAR, base_language

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
PLACEHOLDER = re.compile(
    r"\bTODO\b|\bTBD\b|\bFIXME\b|(?i:lorem ipsum)|(?i:\[\s*(?:insert|add|your|placeholder|todo|"
    r"insertar|añadir|inserte|einfügen|hier|insérer|ajouter|votre|вставьте|вставить|здесь)\b[^\]]*\])"
    r"|(?i:<\s*(?:insert|your|placeholder)\b[^>]*>)|\{\{[^}]*\}\}|^\s*(?:\.\.\.|…)\s*$",
    re.MULTILINE,
)
ARTIFACTS: dict[str, tuple[str, ...]] = {
    "en": (
        r"sure[,!]? here(?:'s| is)",
        r"certainly[,!] here",
        r"as an ai\b",
        r"as a language model",
        r"i hope this helps",
        r"let me know if you",
        r"here(?:'s| is) (?:the|your) lesson",
        r"i'm sorry, but",
        r"i can(?:not|'t) (?:help|assist)",
        r"feel free to ask",
    ),
    "es": (
        r"claro[,!]? aquí (?:tienes|está)",
        r"como (?:una )?ia\b",
        r"como modelo de lenguaje",
        r"espero que (?:esto|te) (?:te )?(?:ayude|sirva)",
        r"aquí (?:tienes|está) (?:la|tu) lección",
        r"no dudes en preguntar",
        r"lo siento, pero",
    ),
    "de": (
        r"natürlich[,!]? hier ist",
        r"als (?:eine )?ki\b",
        r"als sprachmodell",
        r"ich hoffe, (?:das|dies) hilft",
        r"hier ist (?:die|deine|ihre) lektion",
    ),
    "fr": (
        r"bien sûr[,!]? voici",
        r"en tant qu'ia\b",
        r"en tant que modèle de langage",
        r"j'espère que cela (?:vous |t')aide",
        r"voici (?:la|votre|ta) leçon",
    ),
    "ru": (
        r"конечно[,!]? вот",
        r"как (?:ии|искусственный интеллект)\b",
        r"как языковая модель",
        r"надеюсь, это поможет",
        r"вот (?:ваш|твой) урок",
    ),
    "zh": (
        r"当然[，,！!]?这是",
        r"作为(?:一个)?(?:AI|人工智能)",
        r"作为(?:一个)?语言模型",
        r"希望(?:这|这些)对你有(?:所)?帮助",
    ),
    "ja": (r"もちろん[、,]?こちら", r"AIとして", r"言語モデルとして", r"お役に立てれば幸いです"),
    "ar": (r"بالتأكيد[،,]? إليك", r"بصفتي (?:نموذج|ذكاء)", r"كنموذج لغوي", r"آمل أن يكون هذا مفيد"),
}
_ARTIFACT_RE: dict[str, re.Pattern[str]] = {}


def artifact_pattern(language: str) -> re.Pattern[str]:
    """English artifacts plus those of the lesson's language, compiled once per language."""
    lang = base_language(language)
    if lang not in _ARTIFACT_RE:
        phrases = ARTIFACTS["en"] + (ARTIFACTS.get(lang, ()) if lang != "en" else ())
        _ARTIFACT_RE[lang] = re.compile("|".join(f"(?:{p})" for p in phrases), re.IGNORECASE)
    return _ARTIFACT_RE[lang]


def word_count(text: str) -> int:
    """Words, with two CJK characters counted as one word."""
    cjk = len(HAN_CHAR.findall(text)) + len(KANA_CHAR.findall(text))
    if not cjk:
        return len(WORD.findall(text))
    rest = HAN_CHAR.sub(" ", KANA_CHAR.sub(" ", text))
    return len(WORD.findall(rest)) + cjk // 2


def _section_words(section: Section) -> int:
    return sum(
        word_count(b.text if b.kind == "code" else prose_of(b))
        for b in section.blocks
        if b.kind != "heading"
    )


def check_min_section_length(lesson: ParsedLesson, min_words: int = 50) -> CheckResult:
    """Empty sections FAIL (PARTIAL_REGEN); sections under `min_words` WARN (flag to judge)."""
    findings: list[Finding] = []
    empty = False
    shortest = None
    for section in lesson.body_sections():
        words = _section_words(section)
        shortest = words if shortest is None else min(shortest, words)
        if words == 0:
            empty = True
            findings.append(
                Finding(section=section.title, line=section.line_no, message="empty section")
            )
        elif words < min_words:
            findings.append(
                Finding(
                    section=section.title,
                    line=section.line_no,
                    message=f"{words} words (< {min_words})",
                )
            )
    result = CheckResult(
        name="min_section_length",
        findings=findings,
        metrics={"shortest_section_words": shortest or 0},
    )
    if empty:
        result.status, result.action = CheckStatus.FAIL, HeuristicAction.PARTIAL_REGEN
    elif findings:
        result.status, result.action = CheckStatus.WARN, HeuristicAction.FLAG_TO_JUDGE
    return result


def _scan(lesson: ParsedLesson, pattern: re.Pattern[str], message: str) -> list[Finding]:
    findings: list[Finding] = []
    for section in lesson.sections:
        for block in section.blocks:
            if block.kind == "code":
                continue
            for match in pattern.finditer(prose_of(block)):
                findings.append(
                    Finding(
                        section=section.title,
                        line=block.line_no,
                        message=message,
                        sample=match.group()[:60],
                    )
                )
    return findings


def check_placeholders(lesson: ParsedLesson) -> CheckResult:
    """TODO / lorem ipsum / `[insert ...]` outside code: FAIL, the sections are regenerated."""
    findings = _scan(lesson, PLACEHOLDER, "placeholder content")
    result = CheckResult(
        name="placeholders", findings=findings, metrics={"placeholders": len(findings)}
    )
    if findings:
        result.status, result.action = CheckStatus.FAIL, HeuristicAction.PARTIAL_REGEN
    return result


def check_chatbot_artifacts(lesson: ParsedLesson, language: str) -> CheckResult:
    """ "Sure, here is...", "As an AI..." (English and the lesson's language): WARN, self-fix."""
    findings = _scan(lesson, artifact_pattern(language), "chatbot artifact")
    result = CheckResult(
        name="chatbot_artifacts", findings=findings, metrics={"artifacts": len(findings)}
    )
    if findings:
        result.status, result.action = CheckStatus.WARN, HeuristicAction.SELF_FIX
    return result
