"""checkLanguageConsistency: passages in another language, and stray foreign letters.

Read on the writer's own prose (paragraphs and lists, `notation.own_voice`): code, formulas,
URLs, tables, quotations and italic terms are what lessons legitimately hold in other
languages and scripts, so they are removed first; so are parenthesised terms for the script
check (`le Tao (道)`).

- Chinese or Japanese in an alphabetic lesson, four characters or more in a row: REGENERATE
  (the failure spec 001 starts from: Han characters in a Russian lesson).
- A passage in another alphabetic script, three words or more making a good part of its
  paragraph (in a non-Latin lesson: six Latin words in a row, Latin being most of the
  paragraph): REGENERATE. A sentence cited inside a paragraph of the lesson's language is not.
- A paragraph in another language of the same script (lingua for Latin and Cyrillic, kana for
  Chinese and Japanese; see `detect`): REGENERATE.
- Stray letters (one to three CJK characters, foreign letters glued to a word: `задачу的`, or a
  lone token of one or two foreign letters: `cats и dogs`):
  up to `STRAY_MAX` SELF_FIX (code removes them), more REGENERATE.
"""

from __future__ import annotations

import re

from core.flows.lesson.heuristics.detect import TECH_TOKEN, paragraph_language
from core.flows.lesson.heuristics.parse import Block, ParsedLesson
from core.flows.lesson.heuristics.result import CheckResult, Finding, HeuristicAction
from core.flows.lesson.heuristics.scripts import (
    HAN_CHAR,
    KANA_CHAR,
    LATIN,
    LATIN_LANGUAGES,
    LATIN_WORD,
    LETTER,
    base_language,
    foreign_run_matches,
    foreign_runs,
    longest_latin_run,
)

STRAY_MAX = 3
"""Up to this many stray foreign letters in a block is isolated pollution (self-fixable; spec
001: "1-3 stray foreign chars"); more regenerates."""
STRAY_WORD = 2
"""A foreign token this short standing alone is no word of a citation (`cats и dogs`)."""
PASSAGE_WORDS = 3
PASSAGE_CJK = 4
"""Han or kana characters in a row, outside parentheses, that make a passage (1-3: stray)."""
PARENTHESES = re.compile(r"\([^()\n]*\)|（[^（）\n]*）")
"""A foreign term given in parentheses is a citation: `le Tao (道)`."""
PASSAGE_SHARE = 0.6
"""Share of its paragraph a passage in another alphabetic script must hold to be drift: a
paragraph mostly in that script (an example cited inside a paragraph is not)."""
LATIN_RUN_MIN = 6
"""A non-Latin lesson writes Latin technical terms, not sentences: a run this long is one."""
READ = ("paragraph", "list")
NON_LATIN_WORD = re.compile(f"[^\\W\\d_{LATIN}]+")
LONG_WORD = re.compile(r"[^\W\d_]{3,}")
ITEM_WORDS = 6
"""A list item this long is a sentence; shorter ones are names, terms or notation."""


def _cjk(run: str) -> int:
    return len(HAN_CHAR.findall(run)) + len(KANA_CHAR.findall(run))


def _latin_share(text: str) -> float:
    """Share of Latin words among the block's words (two CJK characters count as a word)."""
    latin = len(LATIN_WORD.findall(text))
    cjk = _cjk(text)
    other = len(NON_LATIN_WORD.findall(HAN_CHAR.sub(" ", KANA_CHAR.sub(" ", text)))) + cjk / 2
    return latin / ((latin + other) or 1)


def _script_findings(text: str, lang: str, section: str, block: Block) -> tuple[int, list[Finding]]:
    """Passages and stray letters of another script in one block, and how many foreign letters
    they hold."""
    findings: list[Finding] = []
    foreign = 0
    letters = len(LETTER.findall(text)) or 1
    stray = ""
    for run, glued in foreign_runs(PARENTHESES.sub(" ", text), lang):
        cjk = _cjk(run)
        if cjk >= PASSAGE_CJK:
            passage = True  # Chinese or Japanese inside an alphabetic lesson: a glitch or a drift
        else:
            words = len(run.split())
            passage = words >= PASSAGE_WORDS and len(LETTER.findall(run)) >= PASSAGE_SHARE * letters
        if passage:
            foreign += len(LETTER.findall(run))
            findings.append(
                Finding(
                    section=section,
                    line=block.line_no,
                    sample=run[:60],
                    message=f"a passage in another script ({lang} lesson)",
                    action=HeuristicAction.REGENERATE,
                )
            )
        elif glued or cjk or len(LETTER.findall(run)) <= STRAY_WORD:
            stray += run
    foreign += len(stray)
    if stray:
        action = HeuristicAction.SELF_FIX if len(stray) <= STRAY_MAX else HeuristicAction.REGENERATE
        findings.append(
            Finding(
                section=section,
                line=block.line_no,
                sample=stray[:20],
                action=action,
                message=f"{len(stray)} stray letters of a script not used in {lang}",
            )
        )
    if lang not in LATIN_LANGUAGES and block.kind == "paragraph":
        latin_words, latin_text = longest_latin_run(TECH_TOKEN.sub(" ", text))
        if latin_words >= LATIN_RUN_MIN and _latin_share(text) >= PASSAGE_SHARE:
            findings.append(
                Finding(
                    section=section,
                    line=block.line_no,
                    sample=latin_text[:60],
                    message=f"a Latin-script passage in a {lang} lesson",
                    action=HeuristicAction.REGENERATE,
                )
            )
    return foreign, findings


def _drift(text: str, lang: str, section: str, block: Block) -> Finding | None:
    found = paragraph_language(text, lang)
    if found is None:
        return None
    code, confidence = found
    return Finding(
        section=section,
        line=block.line_no,
        sample=text.strip()[:60],
        message=f"paragraph written in {code} (confidence {confidence:.2f}), lesson is {lang}",
        action=HeuristicAction.REGENERATE,
    )


def check_language_consistency(lesson: ParsedLesson, language: str) -> CheckResult:
    """Passages in another language or script (REGENERATE), stray letters (SELF_FIX)."""
    lang = base_language(language)
    findings: list[Finding] = []
    paragraphs = foreign = 0
    for section in lesson.sections:
        for block in section.blocks:
            if block.kind not in READ:
                continue
            text = block.voice
            count, found = _script_findings(text, lang, section.title, block)
            foreign += count
            findings += found
            if block.kind == "list":  # only the items that are sentences, not notation or names
                text = "\n".join(
                    i for i in text.splitlines() if len(LONG_WORD.findall(i)) >= ITEM_WORDS
                )
            if drift := _drift(text, lang, section.title, block):
                paragraphs += 1
                findings.append(drift)
    return CheckResult.of(
        "language_consistency", findings, foreign_characters=foreign, foreign_paragraphs=paragraphs
    )


def strip_stray_letters(line: str, language: str) -> str:
    """The line without its stray foreign letters (glued to a word, or one to three CJK
    characters), parenthesised citations kept."""
    kept = [m.span() for m in PARENTHESES.finditer(line)]
    out, last = [], 0
    for match in foreign_run_matches(line, language):
        inside = any(a <= match.start() < b for a, b in kept)
        cjk = _cjk(match.group())
        glued = bool(
            LETTER.match(line[match.start() - 1 : match.start()])
            or LETTER.match(line[match.end() : match.end() + 1])
        )
        short = len(LETTER.findall(match.group())) <= STRAY_WORD
        if not inside and ((0 < cjk < PASSAGE_CJK) or ((glued or short) and not cjk)):
            out.append(line[last : match.start()])
            last = match.end()
    out.append(line[last:])
    return re.sub(r"(?<=\S) {2,}(?=\S)", " ", "".join(out)) if last else line
