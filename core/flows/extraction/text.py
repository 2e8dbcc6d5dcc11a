"""Deterministic text helpers: title normalization for exact matching, a language guess.

Code decides what code can: two titles that normalize to the same string are the same
concept without asking a model, and a concept whose text is clearly in another language
than the configured one is flagged by counting function words.
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_ARTICLES = {"el", "la", "los", "las", "un", "una", "the", "a", "an", "le", "les", "der", "die"}

_STOPWORD_TEXT = {
    "es": (
        "el la los las de del que y en un una es por con para se al lo como más pero sus su"
        " este esta son ser cuando sin sobre también muy hay entre porque qué donde"
    ),
    "en": (
        "the of and to in is that it for on with as are be this by from at or an was not"
        " but have which their they you when can more what if we"
    ),
    "fr": (
        "le la les de des du et est un une que qui dans pour pas sur au avec ce il elle"
        " sont par plus ne se ou mais"
    ),
    "de": (
        "der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch"
        " es an werden aus er wie"
    ),
    "pt": (
        "o a os as de do da que e em um uma é para com não por mais dos das se na no ao"
        " como mas foi ele ela são"
    ),
    "it": (
        "il lo la i gli le di che e è un una per con non del della sono si da in al come"
        " più ma anche nel"
    ),
}
STOPWORDS = {lang: frozenset(words.split()) for lang, words in _STOPWORD_TEXT.items()}
"""Frequent function words per language (ISO 639-1), enough to tell prose apart."""


def normalize_title(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form of a title; leading articles dropped."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    words = _NON_WORD.sub(" ", plain).split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


def guess_language(text: str, min_hits: int = 3) -> str | None:
    """The language whose function words dominate the text, or None when unsure.

    Unsure means fewer than `min_hits` function words, or a tie: short titles are never
    judged, so only clear cases are flagged.
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    counts = {lang: sum(w in stop for w in words) for lang, stop in STOPWORDS.items()}
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    best, score = ranked[0]
    if score < min_hits or score <= ranked[1][1] * 1.5:
        return None
    return best


def is_other_language(text: str, language: str) -> str | None:
    """The other language the text is clearly written in, or None (same or unsure)."""
    if language not in STOPWORDS:
        return None
    guessed = guess_language(text)
    return guessed if guessed is not None and guessed != language else None


def whole_words(text: str, limit: int) -> str:
    """Text a length-bounded schema may have cut mid-word, ending on its last whole word.

    Grammar-constrained decoding stops a string exactly at its maxLength; a title such as
    "... al fortalecer el m" must not become a note's name.
    """
    text = " ".join(text.split())
    if len(text) < limit:
        return text
    head, _, _tail = text[:limit].rpartition(" ")
    return (head or text[:limit]).rstrip(" ,;:-–—(")


def clip_words(text: str, limit: int) -> str:
    """The text cut to at most `limit` words (an ellipsis marks a cut)."""
    words = text.split()
    return text.strip() if len(words) <= limit else " ".join(words[:limit]) + "…"
