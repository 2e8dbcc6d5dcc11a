"""Planting one defect into a clean lesson of the corpus."""

from __future__ import annotations

import random
import re

from tests.flows.lesson.corpus import LANGUAGES, PARAGRAPHS

STRAY = {
    "latin": ["的", "是", "这", "и", "в", "の", "ب"],
    "ru": ["的", "是", "这个", "の", "ب"],
    "zh": ["и", "の", "は", "ب", "в"],
    "ja": ["и", "ب", "в", "д"],
    "ar": ["的", "и", "の", "这"],
}
PHRASES = {
    "latin": ["这个方法很好", "это очень важно", "これは大切です", "هذا مهم جدا"],
    "ru": ["这个方法很好", "これは大切です", "هذا مهم جدا"],
    "zh": ["это очень важно", "これはとても大切です", "هذا مهم جدا"],
    "ja": ["это очень важно", "هذا مهم جدا"],
    "ar": ["这个方法很好", "это очень важно", "これは大切です"],
}
ARTIFACT_OPENERS = {
    "en": ["Sure, here is the lesson you asked for:", "Certainly! Here is a short lesson."],
    "es": ["¡Claro, aquí tienes la lección!", "Claro, aquí está la lección que pediste."],
    "de": ["Natürlich, hier ist die Lektion.", "Natürlich! Hier ist die Lektion zum Thema."],
    "fr": ["Bien sûr, voici la leçon demandée.", "Bien sûr ! Voici la leçon."],
    "ru": ["Конечно, вот урок по этой теме.", "Конечно! Вот урок, который вы просили."],
    "zh": ["当然，这是你要的课程。", "当然！这是关于编程的课程。"],
    "ja": ["もちろん、こちらがレッスンです。", "もちろん、こちらが説明です。"],
    "ar": ["بالتأكيد، إليك الدرس المطلوب.", "بالتأكيد، إليك شرحاً مختصراً."],
}
ARTIFACT_CLOSERS = {
    "en": [
        "I hope this helps! Let me know if you have questions.",
        "As an AI, I cannot run this code.",
    ],
    "es": ["Espero que esto te ayude.", "Como modelo de lenguaje, no puedo ejecutar el código."],
    "de": ["Ich hoffe, das hilft dir weiter.", "Als KI kann ich den Code nicht ausführen."],
    "fr": ["J'espère que cela vous aide.", "En tant qu'IA, je ne peux pas exécuter ce code."],
    "ru": ["Надеюсь, это поможет.", "Как языковая модель, я не могу запустить код."],
    "zh": ["希望这对你有帮助。", "作为一个AI，我无法运行这段代码。"],
    "ja": ["お役に立てれば幸いです。", "AIとして、このコードは実行できません。"],
    "ar": ["آمل أن يكون هذا مفيداً لك.", "كنموذج لغوي، لا أستطيع تشغيل الشيفرة."],
}
PLACEHOLDERS = {
    "any": [
        "[insert example here]",
        "TODO: add an example.",
        "Lorem ipsum dolor sit amet.",
        "{{example}}",
        "[your explanation here]",
    ],
    "es": ["[insertar ejemplo aquí]"],
    "de": ["[hier Beispiel einfügen]"],
    "fr": ["[insérer un exemple ici]"],
    "ru": ["[вставьте пример здесь]"],
}
LATIN = {"en", "es", "de", "fr"}
TERMINAL = ".!?。！？…؟"


def _group(language: str) -> str:
    return "latin" if language in LATIN else language


def _prose_paragraphs(lines: list[str]) -> list[int]:
    """Indexes of prose paragraph lines (not headings, lists, code)."""
    in_code = False
    found = []
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line and not line.startswith(("#", "- ")):
            found.append(i)
    return found


def _mix(body: str, language: str, rng: random.Random) -> tuple[str, str]:
    lines = body.split("\n")
    target = rng.choice(_prose_paragraphs(lines))
    kind = rng.choice(("stray", "phrase", "paragraph"))
    if kind == "paragraph":
        pool = [lang for lang in LANGUAGES if lang != language]
        if language in LATIN:
            pool = [lang for lang in LATIN if lang != language]
        elif rng.random() < 0.6:
            pool = ["en"]
        other = rng.choice(pool)
        lines[target] = rng.choice(PARAGRAPHS[other])
        return "\n".join(lines), f"paragraph in {other}"
    source = STRAY if kind == "stray" else PHRASES
    insert = "".join(rng.sample(source[_group(language)], rng.randint(1, 2)))
    words = lines[target].split(" ")
    at = rng.randint(1, max(1, len(words) - 2))
    words.insert(at, insert)
    lines[target] = " ".join(words)
    return "\n".join(lines), f"{kind} {insert!r}"


def _truncate(body: str, rng: random.Random) -> tuple[str, str]:
    """Cut inside a word in the second half of the lesson (a cut mid-sentence)."""
    text = body.rstrip()
    while True:
        pos = rng.randint(len(text) // 2, len(text) - 2)
        before, after = text[pos - 1], text[pos]
        if before.isalpha() and after.isalpha():
            return text[:pos], f"cut at {pos}/{len(text)}"


def _shorten(body: str, rng: random.Random) -> tuple[str, str]:
    parts = re.split(r"(?m)^(?=## )", body)
    index = rng.randrange(1, len(parts))
    heading = parts[index].split("\n", 1)[0]
    lang_text = parts[index].split("\n\n")[1]
    sentence = re.split(r"(?<=[.。!?؟])\s*", lang_text)[0]
    if rng.random() < 0.2:
        sentence = ""
    parts[index] = f"{heading}\n\n{sentence}\n\n" if sentence else f"{heading}\n\n"
    return "".join(parts), f"section {heading!r} shortened"


def _artifact(body: str, language: str, rng: random.Random) -> tuple[str, str]:
    own = rng.random() < 0.7
    lang = language if own else "en"
    if rng.random() < 0.5:
        phrase = rng.choice(ARTIFACT_OPENERS[lang])
        title, rest = body.split("\n\n", 1)
        return f"{title}\n\n{phrase}\n\n{rest}", f"opener {phrase!r}"
    phrase = rng.choice(ARTIFACT_CLOSERS[lang])
    return body.rstrip() + f"\n\n{phrase}\n", f"closer {phrase!r}"


def _placeholder(body: str, language: str, rng: random.Random) -> tuple[str, str]:
    lines = body.split("\n")
    target = rng.choice(_prose_paragraphs(lines))
    phrase = rng.choice(PLACEHOLDERS["any"] + PLACEHOLDERS.get(language, []))
    if rng.random() < 0.5:
        lines.insert(target + 1, "\n" + phrase)
    else:
        lines[target] = lines[target] + " " + phrase
    return "\n".join(lines), f"placeholder {phrase!r}"


def plant(defect: str, body: str, language: str, rng: random.Random) -> tuple[str, str]:
    """A copy of `body` with one defect of kind `defect`, and what was planted."""
    if defect == "language_mixing":
        return _mix(body, language, rng)
    if defect == "truncation":
        return _truncate(body, rng)
    if defect == "short_section":
        return _shorten(body, rng)
    if defect == "artifact":
        return _artifact(body, language, rng)
    if defect == "placeholder":
        return _placeholder(body, language, rng)
    raise ValueError(defect)
