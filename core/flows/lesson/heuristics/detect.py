"""Paragraph-level language detection for languages that share a script.

Script ranges cannot tell a Portuguese paragraph in a Spanish lesson, nor a Ukrainian one in a
Russian lesson: a statistical detector (lingua) can, given enough text. One detector per script
family is built once per process, over the languages a lesson of that family may drift into,
in low-accuracy mode (trigrams: fast, and reliable on paragraphs of the minimum lengths below).
Chinese and Japanese are told apart by script: Japanese writes kana in every sentence, Chinese
never does.
"""

from __future__ import annotations

import re
from functools import cache

from lingua import Language, LanguageDetector, LanguageDetectorBuilder

from core.flows.lesson.heuristics.scripts import HAN_CHAR, KANA_CHAR, LETTER, words

FAMILIES: dict[str, dict[str, Language]] = {
    "latin": {
        "en": Language.ENGLISH,
        "es": Language.SPANISH,
        "fr": Language.FRENCH,
        "de": Language.GERMAN,
        "it": Language.ITALIAN,
        "pt": Language.PORTUGUESE,
        "nl": Language.DUTCH,
        "ca": Language.CATALAN,
        "la": Language.LATIN,
        "ro": Language.ROMANIAN,
    },
    "cyrillic": {
        "ru": Language.RUSSIAN,
        "uk": Language.UKRAINIAN,
        "be": Language.BELARUSIAN,
        "bg": Language.BULGARIAN,
        "sr": Language.SERBIAN,
        "mk": Language.MACEDONIAN,
    },
}
"""Languages a lesson may drift into, per script. Latin is there so that a Latin quotation
is recognised as Latin, which is never drift."""
FAMILY_OF = {code: family for family, table in FAMILIES.items() for code in table}
NEVER_DRIFT = frozenset({"la"})
MIN_WORDS = {"en": 12, "es": 12, "fr": 12, "de": 10, "it": 12, "pt": 12, "ru": 9, "uk": 9}
"""Words a paragraph needs before it is judged: fewer for the languages whose words are long
(German compounds, Slavic inflections carry more letters per word)."""
DEFAULT_MIN_WORDS = 12
CJK_MIN_CHARS = 20
"""Han and kana characters a paragraph needs before Chinese and Japanese are told apart."""
KANA_SHARE_JAPANESE = 0.12
"""Japanese prose is a third to a half kana; a Chinese paragraph that cites a Japanese name
stays far below this share."""
OWN_WORDS: dict[str, frozenset[str]] = {
    "en": words(
        "the and that this with which from have has are its these their there would "
        "been when what to it for on as be by"
    ),
    "fr": words(
        "le les du et qui ce des est une dans pour pas sur avec aux cette sont leur "
        "mais où nous vous ils elle été être très"
    ),
    "de": words(
        "der die das den zu von im und ist nicht ein eine einen dem mit auf für sich "
        "auch wird werden dass oder wenn sind bei über zum zur vom"
    ),
    "es": words(
        "los las y pero muy está están también hay esta este cuando puede sin más "
        "desde en es del lo al"
    ),
    "it": words(
        "il di della delle degli dei gli che è sono anche più questo questa nella nel "
        "alla essere molto del dal sul ai"
    ),
    "pt": words(
        "os não uma um é em dos das ao às pelo pela mais muito também são isso seu sua na com"
    ),
}
"""Frequent function words of each Latin-script language, rare in the languages it may drift
into (a paragraph full of them is in that language: the classic function-word identification).
Only a shortcut: a paragraph where they are frequent is not sent to the detector."""
OWN_LETTERS = {
    "ru": (re.compile("[ыэ]"), re.compile("[іїєґўјљњћђџѓќѕ]")),
    "uk": (re.compile("[іїє]"), re.compile("[ыэёўјљњћђџѓќѕ]")),
}
"""Cyrillic orthographies tell Russian and Ukrainian from their neighbours: Russian writes ы
and э, and none of і ї є ґ (Ukrainian), ў (Belarusian), ј љ њ (Serbian, Macedonian); Ukrainian
writes і ї є and none of ы э ё ў. A paragraph with its own letters and none of the others' is
not sent to the detector (Bulgarian, which writes neither, always is)."""
OWN_WORDS_MIN = 3
OWN_WORDS_SHARE = 0.08
SAMPLE_WORDS = 30
"""The detector reads a paragraph's first words only: thirty words leave it no doubt, and its
time grows with the text."""
MIN_CONFIDENCE = 0.95
"""The other language must be at least this likely, and the lesson's own at most
`MAX_OWN_CONFIDENCE`."""
MAX_OWN_CONFIDENCE = 0.1
TECH_TOKEN = re.compile(
    r"\b(?:[A-Z]{2,}s?|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w*[\d_]\w*|\w+\.\w+(?:\.\w+)*)\b"
)
"""Tokens that are technical terms in any language: ALLCAPS, camelCase, names with digits,
underscores or dots."""
WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


@cache
def detector(family: str = "latin") -> LanguageDetector:
    """The one detector of a script family in this process."""
    return (
        LanguageDetectorBuilder.from_languages(*FAMILIES[family].values())
        .with_low_accuracy_mode()
        .with_preloaded_language_models()
        .build()
    )


def _cjk_language(text: str, expected: str) -> tuple[str, float] | None:
    han, kana = len(HAN_CHAR.findall(text)), len(KANA_CHAR.findall(text))
    if han + kana < CJK_MIN_CHARS:
        return None
    share = kana / (han + kana)
    if expected == "zh" and share >= KANA_SHARE_JAPANESE:
        return "ja", share
    if expected == "ja" and kana == 0:
        return "zh", 1.0
    return None


def _clearly_own(text: str, words: list[str], expected: str) -> bool:
    """Whether the paragraph's function words or letters leave no doubt it is `expected`."""
    if expected in OWN_LETTERS:
        own, others = OWN_LETTERS[expected]
        lowered = text.lower()
        return len(own.findall(lowered)) >= 2 and not others.search(lowered)
    own_words = OWN_WORDS.get(expected, frozenset())
    hits = sum(w.lower() in own_words for w in words)
    return hits >= OWN_WORDS_MIN and hits >= OWN_WORDS_SHARE * len(words)


def paragraph_language(text: str, expected: str) -> tuple[str, float] | None:
    """The language a paragraph of prose is clearly written in when it is not `expected`
    (same script), with the detector's confidence; None when it is `expected` or unclear."""
    if expected in ("zh", "ja"):
        return _cjk_language(text, expected)
    family = FAMILY_OF.get(expected)
    if family is None:
        return None
    words = WORD.findall(TECH_TOKEN.sub(" ", text))
    if len(words) < MIN_WORDS.get(expected, DEFAULT_MIN_WORDS):
        return None
    if _clearly_own(text, words, expected):
        return None
    sample = " ".join(words[:SAMPLE_WORDS])
    codes = {language: code for code, language in FAMILIES[family].items()}
    values = {
        codes[v.language]: v.value
        for v in detector(family).compute_language_confidence_values(sample)
    }
    top = max(values, key=values.__getitem__, default=None)
    if top is None or top == expected or top in NEVER_DRIFT:
        return None
    if values[top] < MIN_CONFIDENCE or values.get(expected, 0.0) > MAX_OWN_CONFIDENCE:
        return None
    return top, values[top]


def letters(text: str) -> int:
    return len(LETTER.findall(text))
