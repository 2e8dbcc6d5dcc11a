"""Who is speaking: the cues of an assistant addressing the person who asked for the lesson.

A lesson speaks to the learner about the subject ("Try it yourself!", "Prenons un exemple").
Chatter speaks to the requester about the lesson as a product, and its cues are discourse
functions, each a small closed set per language:

- `speaker`: the writer as "I" (pronouns; in pro-drop languages, unambiguous first-person verb
  forms). Teachers rarely write "I" in a lesson; alone it is not enough (philosophy lessons
  reason in the first person).
- `assent`: a reply particle opening the text ("Sure!", "Bien sûr !", "Gerne!", "Конечно!"):
  the text answers a request. Weighs more when it stands alone as the first sentence.
- `request`: a reference to the request itself ("as you asked", "wie gewünscht", "как вы
  просили").
- `offer`: an offer of further service or a call for feedback ("let me know", "dites-moi",
  "если хотите, я могу").
- `hope`: the closing formula "I hope (this helps)".
- `ai`: the writer naming itself an AI or a language model.
- `present`: a presentative naming the lesson as a product ("here is the lesson", "voici la
  leçon", "вот урок"); any presentative after a reply particle ("Sure, here is the part") is
  the reply formula too (`presentative` alone weighs nothing: "Voici un exemple" teaches).
- `edit`: the writer reporting what it did to the text ("I have simplified", "j'ai ajouté").
- `client`: the learners named in the third person as the requester's ("your students",
  "vos élèves"): the text speaks to their teacher, not to them.

Quotations, italic examples, code and tables are removed first (`notation.own_voice`): a
grammar example "*Je veux que tu viennes.*" is not the writer speaking.
"""

from __future__ import annotations

import re
from functools import cache

from core.flows.lesson.heuristics.scripts import base_language
from core.flows.lesson.heuristics.voice_cues import CUES

WEIGHTS = {
    "speaker": 1,
    "assent": 1,
    "request": 2,
    "offer": 2,
    "hope": 2,
    "ai": 2,
    "present": 1,
    "edit": 2,
    "client": 1,
    "presentative": 0,
}
"""`hope` weighs as much as "I" + hope: the formula is the speaker's own in every language
(a first-person verb where the pronoun drops: "Надеюсь", "Espero que", "お役に立てれば")."""
CHATTER_SCORE = 2
"""A sentence with cues weighing this much is chatter."""


def _tables(language: str) -> list[dict[str, str]]:
    """The lesson language's cues, and English ones (assistants often chatter in English)."""
    lang = base_language(language)
    own = CUES.get(lang)
    return [own, CUES["en"]] if own and lang != "en" else [CUES["en"]]


@cache
def cues(language: str) -> list[dict[str, re.Pattern[str]]]:
    """The compiled cue tables of `language`."""
    return [
        {name: re.compile(p, re.IGNORECASE) for name, p in table.items()}
        for table in _tables(language)
    ]


def has_cue(text: str, language: str) -> bool:
    """Whether any cue occurs in `text`: a first pass before scoring its sentences (separate
    patterns are faster than one alternation of them all)."""
    return any(p.search(text) for table in cues(language) for p in table.values())


def score(
    sentence: str, language: str, *, first: bool, opening: bool = False
) -> tuple[int, list[str]]:
    """The cues a sentence carries and their weight (the better of the lesson language's and
    English cues); an assent standing alone as the first sentence of a block ("Bien sûr !")
    weighs double, and so does a presentative naming the lesson in the lesson's `opening`
    block ("Here is a lesson on...": a teacher does not open a lesson by handing it over)."""
    text = sentence.strip().lstrip("¡¿*_ ")
    best: tuple[int, list[str]] = (0, [])
    for table in cues(language):
        found = [name for name, pattern in table.items() if pattern.search(text)]
        total = sum(WEIGHTS[name] for name in found)
        if "assent" in found and first and len(text.split()) <= 3 and text.endswith(("!", "！")):
            total += 1
        if "present" in found and opening:
            total += 1
        if "assent" in found and "presentative" in found:
            total += 1  # "Sure, here is...": the reply formula, whatever it hands over
        best = max(best, (total, found))
    return best
