"""Candidates (1.1a) code rejects before anyone reviews them: no model call.

A small model copies the examples of its prompt ("El ejercicio aeróbico regular mejora la
salud cardiovascular...", from a book about thinking), fills a placeholder shape, returns the
schema's field names as values, or writes a concept its quotes say nothing about. Such a
candidate is rejected with the reason, which the review shows among the warnings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from core.degenerate import field_names_as_values, fold, repeated_sentence
from core.flows.extraction.text import STOPWORDS, guess_language

if TYPE_CHECKING:
    from core.flows.extraction.prompts import CandidateAnswer

PROMPT_EXAMPLES = (
    "El ejercicio es bueno",
    "El ejercicio mejora la salud cardiovascular, reduce el estrés y mejora el sueño",
    "El ejercicio aeróbico regular mejora la salud cardiovascular al fortalecer el músculo "
    "cardíaco y reducir la presión arterial",
    "<something> is good",
    "<something> improves <A>, reduces <B> and helps <C>",
    "<something> causes <one effect> through <one mechanism>",
)
"""Every illustration the extraction prompt shows or ever showed (the old Spanish ones are
what small models copied from every source)."""
FIELDS = ("title", "short_summary", "summary", "concept", "analysis", "rationale", "quote_ids")
EXAMPLE_SIMILARITY = 80
"""A title or concept this close (0-100, partial ratio of folded text) to an example
restates it."""
STEM = 5
"""Leading letters two words must share to count as the same word (crosses inflections and
most Spanish/English cognates: memoria/memory, práctica/practice)."""


def restates_example(text: str) -> bool:
    folded = fold(text)
    if "<" in text and ">" in text:
        return True
    return bool(folded) and any(
        fuzz.partial_ratio(folded, fold(example)) >= EXAMPLE_SIMILARITY
        and len(folded) >= 0.5 * len(fold(example))
        for example in PROMPT_EXAMPLES
    )


def _stems(text: str) -> set[str]:
    words = fold(text).split()
    stop = set().union(*STOPWORDS.values())
    return {w[:STEM] for w in words if len(w) >= 4 and w not in stop and not w.isdigit()}


def unsupported(candidate: CandidateAnswer, quotes: Sequence[str], language: str) -> bool:
    """No content word of the title or concept text in the quotes it cites.

    Judged only when the quotes are clearly in the concept language: a concept written in
    Spanish from English quotes may share no word with them."""
    text = " ".join(quotes)
    if guess_language(text) != language:
        return False
    own = _stems(f"{candidate.title} {candidate.concept}")
    return bool(own) and not own & _stems(text)


def says_something(note: str) -> bool:
    """Two words or more beside numbers: `1`, `nada`, `-` say nothing worth a reviewer's look."""
    return len([w for w in fold(note).split() if not w.isdigit()]) >= 2


def names_the_source(title: str, source_title: str) -> bool:
    """The title is the start of the source's title cut inside a word (the grammar stopped
    the model at maxLength while it copied the book's name: 'Pensar rápido, pensar despac').
    A concept named like the whole book ('Deep Work' from *Deep Work*) is legitimate."""
    own, source = fold(title).strip(), fold(source_title)
    cut_mid_word = source.startswith(own) and len(source) > len(own) and source[len(own)].isalnum()
    return len(own) >= 4 and cut_mid_word and len(own) >= 0.5 * len(source)


def letters_not_words(title: str) -> bool:
    """Three or more letters standing alone and no word: 'a-b-c-d-e-f-g-h-i-j-k-l-' (Gemma 3
    270M's refined concept of *Deep Work*) names nothing. 'C', 'A/B testing', 'Sistema 1' do."""
    runs = re.findall(r"[^\W\d_]+", title)
    return len(runs) >= 3 and all(len(run) == 1 for run in runs)


def rejection(
    candidate: CandidateAnswer, quotes: Sequence[str], language: str, source_title: str = ""
) -> str:
    """Why code rejects this candidate ('' when it does not)."""
    if source_title and names_the_source(candidate.title, source_title):
        return "its title is the source's title cut off, not an idea in it"
    if letters_not_words(candidate.title):
        return "its title is letters, not words"
    values = {f: getattr(candidate, f, "") for f in FIELDS if f != "quote_ids"}
    if field_names_as_values(values, FIELDS):
        return "its fields hold the schema's field names instead of content"
    if restates_example(candidate.title) or restates_example(candidate.concept):
        return "it restates an example of the prompt, not the source"
    if repeated_sentence(candidate.concept):
        return "its text repeats the same sentence"
    if quotes and unsupported(candidate, quotes, language):
        return "its quotes say nothing about it (no shared word)"
    return ""
