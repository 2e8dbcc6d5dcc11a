"""Deterministic variants: names that differ only in case, accents, punctuation, plural or a
leading article.

Code finds these before any model call (they cost nothing). `variant_key` folds a name to a
form shared by all such spellings: accents stripped, case folded, punctuation to spaces, a
leading article of the concept's language dropped (`La dopamina` / `Dopamina`, `The habit
loop` / `Habit loop`, `L'attention` / `Attention`), and each word reduced by Spanish and
English plural rules to a stem its singular shares (`hábitos` / `Hábito` -> `habito`,
`practices` / `practice` -> `practic`, `lecciones` / `lección` -> `leccion`, `theories` /
`theory` -> `theori`, `luces` / `luz` -> `luc`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
STOPWORDS = frozenset(
    {"a", "al", "and", "de", "del", "el", "en", "for", "in", "la", "las", "los", "of", "on"}
    | {"the", "to", "y", "e", "o", "u", "un", "una", "with"}
)
"""Words skipped when an acronym is read from a multi-word name."""
ARTICLES: dict[str, frozenset[str]] = {
    "es": frozenset({"el", "la", "los", "las", "lo", "un", "una", "unos", "unas"}),
    "en": frozenset({"the", "a", "an"}),
    "fr": frozenset({"le", "la", "les", "l", "un", "une", "des"}),
    "de": frozenset(
        {
            "der",
            "die",
            "das",
            "den",
            "dem",
            "des",
            "ein",
            "eine",
            "einen",
            "einem",
            "einer",
            "eines",
        }
    ),
    "it": frozenset({"il", "lo", "la", "i", "gli", "le", "l", "un", "uno", "una"}),
    "pt": frozenset({"o", "a", "os", "as", "um", "uma", "uns", "umas"}),
}
"""Leading articles per language (names are folded first: `L'attention` reads `l attention`)."""
DEFAULT_ARTICLES = ARTICLES["es"] | ARTICLES["en"]
"""For a concept whose language is not known: the app's two languages."""


def fold(name: str) -> str:
    """Accents stripped, case folded, punctuation collapsed to single spaces."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", bare.casefold()).split())


def stem(word: str) -> str:
    """A folded word reduced so that its singular and plural (es/en) share the result."""
    if word.isdigit():
        return word
    if len(word) > 3:
        if word.endswith("es") and len(word) > 4:
            word = word[:-2]
        elif word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if len(word) > 3 and word.endswith("e"):
            word = word[:-1]
    if word.endswith("y"):
        word = word[:-1] + "i"
    elif word.endswith("z"):
        word = word[:-1] + "c"
    return word


def without_article(folded: str, language: str | None = None) -> str:
    """A folded name without its leading article (kept when nothing would be left)."""
    parts = folded.split(" ", 1)
    articles = ARTICLES.get(language or "", DEFAULT_ARTICLES)
    if len(parts) == 2 and parts[0] in articles and len(parts[1]) > 1:
        return parts[1]
    return folded


def words(name: str, language: str | None = None) -> list[str]:
    """The stems of a name's words (a leading article dropped)."""
    return [stem(w) for w in without_article(fold(name), language).split()]


def variant_key(name: str, language: str | None = None) -> str:
    """Equal for names that differ only in case, accents, punctuation, singular/plural or a
    leading article (of `language`, else Spanish or English)."""
    return " ".join(words(name, language))


def initials(name: str) -> str:
    """The acronym a multi-word name would have (stopwords skipped): `zdp` for ZDP's expansion."""
    parts = [w for w in fold(name).split() if w not in STOPWORDS]
    return "".join(w[0] for w in parts) if len(parts) > 1 else ""


def looks_like_acronym(name: str) -> bool:
    """A single short word written mostly in capitals (`ZDP`, `SRS`, `TDAH`)."""
    bare = name.strip().replace(".", "")
    return 2 <= len(bare) <= 8 and " " not in bare and sum(c.isupper() for c in bare) >= 2


@dataclass(frozen=True)
class NamedConcept:
    """One name the generator sees, and the concept it belongs to."""

    name: str
    concept_id: str
    language: str | None = None
    """The concept's language (which leading articles its names may have)."""


@dataclass(frozen=True)
class VariantMerge:
    """Two concepts whose names are the same modulo a deterministic variant."""

    a_id: str
    b_id: str
    a_name: str
    b_name: str
    reason: str


def _why(a: str, b: str) -> str:
    if a.casefold() == b.casefold():
        return "same name in another case"
    if fold(a) == fold(b):
        return "same name up to accents or punctuation"
    if without_article(fold(a)) != fold(a) or without_article(fold(b)) != fold(b):
        return "same name with or without a leading article"
    return "singular/plural variant of the same name"


def deterministic_merges(names: Iterable[NamedConcept]) -> list[VariantMerge]:
    """One merge per pair of concepts that share a variant key (first name of each kept)."""
    groups: dict[str, dict[str, str]] = {}
    for item in names:
        key = variant_key(item.name, item.language)
        if key:
            groups.setdefault(key, {}).setdefault(item.concept_id, item.name)
    merges: list[VariantMerge] = []
    for members in groups.values():
        ids = list(members)
        for i, a_id in enumerate(ids):
            for b_id in ids[i + 1 :]:
                a, b = members[a_id], members[b_id]
                merges.append(VariantMerge(a_id, b_id, a, b, _why(a, b)))
    return merges


def acronym_candidates(names: Iterable[NamedConcept]) -> Mapping[str, set[str]]:
    """concept id -> ids of concepts whose name could expand the first's acronym name.

    Candidates only: whether the acronym really stands for that name is the model's call.
    """
    items = list(names)
    by_initials: dict[str, set[str]] = {}
    for item in items:
        letters = initials(item.name)
        if len(letters) >= 2:
            by_initials.setdefault(letters, set()).add(item.concept_id)
    found: dict[str, set[str]] = {}
    for item in items:
        if looks_like_acronym(item.name):
            hits = by_initials.get(fold(item.name).replace(" ", ""), set()) - {item.concept_id}
            if hits:
                found.setdefault(item.concept_id, set()).update(hits)
    return found
