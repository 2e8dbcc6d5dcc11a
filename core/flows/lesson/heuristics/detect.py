"""Paragraph-level language detection for languages that share a script (lingua).

Script ranges cannot tell an English paragraph in a Spanish lesson; a statistical detector can.
The detector is built once per process, with only the Latin-script languages noema writes
lessons in, in low-accuracy mode (fast, and paragraphs are long enough for it).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lingua import Language, LanguageDetector, LanguageDetectorBuilder

from core.flows.lesson.heuristics.scripts import LATIN_WORD

DETECTED: dict[str, Language] = {
    "en": Language.ENGLISH,
    "es": Language.SPANISH,
    "de": Language.GERMAN,
    "fr": Language.FRENCH,
    "it": Language.ITALIAN,
    "pt": Language.PORTUGUESE,
}
CODES = {language: code for code, language in DETECTED.items()}
TECH_TOKEN = re.compile(
    r"\b(?:[A-Z]{2,}s?|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w*[\d_]\w*|\w+\.\w+(?:\.\w+)*)\b"
)
"""Tokens that are technical terms in any language: ALLCAPS, camelCase, names with digits,
underscores or dots."""

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        [
            "the",
            "and",
            "of",
            "to",
            "is",
            "that",
            "it",
            "for",
            "with",
            "are",
            "this",
            "be",
            "by",
            "you",
            "which",
            "when",
            "each",
            "its",
            "from",
            "was",
            "can",
            "every",
            "your",
            "what",
            "how",
        ]
    ),
    "es": frozenset(
        [
            "el",
            "la",
            "los",
            "las",
            "que",
            "y",
            "del",
            "una",
            "por",
            "con",
            "para",
            "es",
            "se",
            "lo",
            "su",
            "al",
            "como",
            "más",
            "pero",
            "sus",
            "cada",
            "cuando",
            "puede",
            "hasta",
        ]
    ),
    "de": frozenset(
        [
            "der",
            "die",
            "das",
            "und",
            "ist",
            "nicht",
            "ein",
            "eine",
            "mit",
            "den",
            "dem",
            "des",
            "sich",
            "auf",
            "für",
            "zu",
            "auch",
            "wird",
            "wie",
            "bei",
            "oder",
            "jede",
            "wenn",
            "sind",
        ]
    ),
    "fr": frozenset(
        [
            "le",
            "la",
            "les",
            "et",
            "des",
            "est",
            "une",
            "du",
            "que",
            "qui",
            "dans",
            "pour",
            "pas",
            "sur",
            "au",
            "avec",
            "ce",
            "sont",
            "son",
            "ses",
            "chaque",
            "plus",
            "mais",
            "ou",
        ]
    ),
}
"""Function words: a paragraph full of its lesson's own (and few of another's) needs no
detector — the cheap path that keeps the check within its time budget."""
STOPWORD_SHARE = 0.12

MIN_WORDS = 8
"""Shorter paragraphs are not judged: a detector is unreliable on a handful of words."""
MIN_CONFIDENCE = 0.9
"""The other language must be this sure (and the lesson's language unlikely) to count."""


def _clearly(expected: str, words: list[str]) -> bool:
    """Whether the function words leave no doubt the paragraph is in `expected`."""
    if expected not in STOPWORDS:
        return False
    counts = {lang: sum(w in stop for w in words) for lang, stop in STOPWORDS.items()}
    own = counts.pop(expected)
    return own >= STOPWORD_SHARE * len(words) and own >= 2 * max(counts.values())


@lru_cache(maxsize=1)
def detector() -> LanguageDetector:
    """The one detector of the process."""
    return (
        LanguageDetectorBuilder.from_languages(*DETECTED.values())
        .with_low_accuracy_mode()
        .with_preloaded_language_models()
        .build()
    )


def paragraph_language(text: str, expected: str) -> tuple[str, float] | None:
    """The language a paragraph is clearly written in when it is not `expected`, else None."""
    if expected not in DETECTED:
        return None
    cleaned = TECH_TOKEN.sub(" ", text)
    words = [w.lower() for w in LATIN_WORD.findall(cleaned)]
    if len(words) < MIN_WORDS or _clearly(expected, words):
        return None
    values = detector().compute_language_confidence_values(cleaned)
    if not values:
        return None
    top = values[0]
    code = CODES.get(top.language, "")
    if code == expected or top.value < MIN_CONFIDENCE:
        return None
    return code, top.value
