"""Unicode script ranges per lesson language.

A letter is "foreign" when its script is not one the lesson's language writes in. Greek and
letter-like math symbols are neutral (λ, µ, ℝ appear in any technical lesson); Latin is allowed
in every language because technical terms (API, React, useState) are written in it — long runs
of Latin words in a non-Latin lesson are caught separately.
"""

from __future__ import annotations

import re
from functools import cache

LATIN = "A-Za-z\u00aa\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff\uff21-\uff3a\uff41-\uff5a"
CYRILLIC = "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f"
HAN = "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
ARABIC = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"
NEUTRAL = (
    "\u00b2\u00b3\u00b5\u00b9\u00bc-\u00be\u0250-\u02ff\u0370-\u03ff\u1f00-\u1fff\u2070-\u209f"
    "\u2100-\u218f\u2460-\u24ff\u2776-\u2793\U0001d400-\U0001d7ff"
)
"""Greek, math letters, number forms (superscripts, fractions, roman and circled numerals) and
the phonetic alphabet (IPA letters and modifiers: [ðə ˈkæt])."""

LANGUAGE_SCRIPTS: dict[str, str] = {
    "en": LATIN,
    "es": LATIN,
    "de": LATIN,
    "fr": LATIN,
    "it": LATIN,
    "pt": LATIN,
    "ru": CYRILLIC + LATIN,
    "uk": CYRILLIC + LATIN,
    "zh": HAN + KANA + LATIN,
    "ja": HAN + KANA + LATIN,
    "ar": ARABIC + LATIN,
}
"""Scripts each language may use (Latin everywhere for technical terms; kana in Chinese
lessons, Han in Japanese ones: which of the two a paragraph is written in is told by
`detect`, not letter by letter)."""

LATIN_LANGUAGES = frozenset({"en", "es", "de", "fr", "it", "pt"})
"""Languages written in Latin: told apart per paragraph by a language detector."""

LATIN_WORD = re.compile(f"[{LATIN}]+(?:['’][{LATIN}]+)*")
HAN_CHAR = re.compile(f"[{HAN}]")
KANA_CHAR = re.compile(f"[{KANA}]")
LETTER = re.compile(r"[^\W\d_]")
_FOREIGN: dict[str, re.Pattern[str]] = {}


def words(text: str) -> frozenset[str]:
    """A word list written as one space-separated string."""
    return frozenset(text.split())


def base_language(language: str) -> str:
    """`es-MX` -> `es`; unknown languages are checked as Latin-script ones."""
    return language.split("-")[0].split("_")[0].lower()


def foreign_letters(language: str) -> re.Pattern[str]:
    """A pattern matching letters outside the scripts of `language` (compiled once)."""
    lang = base_language(language)
    if lang not in _FOREIGN:
        allowed = LANGUAGE_SCRIPTS.get(lang, LATIN) + NEUTRAL
        _FOREIGN[lang] = re.compile(f"[^\\W\\d_{allowed}]")
    return _FOREIGN[lang]


@cache
def _foreign_run(language: str) -> re.Pattern[str]:
    """Runs of foreign letters, with anything but letters of the lesson's scripts between."""
    lang = base_language(language)
    allowed = LANGUAGE_SCRIPTS.get(lang, LATIN) + NEUTRAL
    foreign = f"[^\\W\\d_{allowed}]"
    return re.compile(f"{foreign}+(?:[\\W\\d_]*{foreign}+)*")


def foreign_run_matches(text: str, language: str) -> list[re.Match[str]]:
    """Each run of letters in a script the language does not write."""
    return list(_foreign_run(language).finditer(text))


def foreign_runs(text: str, language: str) -> list[tuple[str, bool]]:
    """Each run of letters in a script the language does not write, and whether it is glued
    to a letter of the lesson's own script (pollution inside a word: `задачу的`)."""
    runs = []
    for match in _foreign_run(language).finditer(text):
        before = text[match.start() - 1 : match.start()]
        after = text[match.end() : match.end() + 1]
        runs.append((match.group(), bool(LETTER.match(before) or LETTER.match(after))))
    return runs


def longest_latin_run(text: str) -> tuple[int, str]:
    """Longest run of consecutive Latin words (only spaces and light punctuation between),
    counting words of two letters or more (note names and variables are single letters)."""
    best, best_text = 0, ""
    run: list[str] = []
    last_end = -1
    for match in LATIN_WORD.finditer(text):
        gap = text[last_end : match.start()] if last_end >= 0 else ""
        if run and (len(gap) > 3 or LETTER.search(gap) or "\n" in gap):
            run = []
        last_end = match.end()
        if len(match.group()) < 2:
            continue
        run.append(match.group())
        if len(run) > best:
            best, best_text = len(run), " ".join(run)
    return best, best_text
