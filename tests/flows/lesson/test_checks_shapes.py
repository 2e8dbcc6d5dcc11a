"""The free checks on shapes the independent corpus lacks, in lessons written for these tests.

Each lesson is small but whole (title, sections, prose). Defective ones assert the family's
check acts at the right line (0-based, as findings count); clean ones assert no action.
"""

from __future__ import annotations

import pytest

from core.flows.lesson.document import deterministic_fixes
from core.flows.lesson.heuristics import HeuristicAction, run_heuristics

INTRO = {
    "en": "Light travels in straight lines until something stops or bends it.",
    "de": "Licht breitet sich geradlinig aus, bis es auf ein Hindernis trifft.",
    "fr": "La lumière se propage en ligne droite tant que rien ne l'arrête.",
    "es": "La luz viaja en línea recta hasta que algo la detiene o la desvía.",
    "it": "La luce viaggia in linea retta finché qualcosa non la ferma.",
    "pt": "A luz viaja em linha reta até que algo a pare ou a desvie.",
    "ru": "Свет распространяется прямолинейно, пока что-то его не остановит.",
    "uk": "Світло поширюється прямолінійно, доки щось його не зупинить.",
    "zh": "光在同一种均匀介质中沿直线传播，遇到障碍物时会被挡住。",
    "ja": "光は同じ物質の中をまっすぐに進み、障害物に当たると遮られます。",
}


def lesson(language: str, *sections: str, title: str = "Lesson") -> str:
    """`# title`, a one-sentence intro, then `## S1`, `## S2`... with the given texts."""
    parts = [f"# {title}", INTRO[language]]
    for n, text in enumerate(sections, 1):
        parts += [f"## S{n}", text.strip()]
    return "\n\n".join(parts) + "\n"


def acting(body: str, language: str, check: str) -> list[tuple[int, str]]:
    report = run_heuristics(body, language)
    return [(f.line, f.message) for f in report.check(check).findings if f.acts]


CLEAN = [
    (
        "en",
        lesson(
            "en",
            "A lens bends light by refraction.\n\n**Example:**\n\n"
            "Hold a magnifying glass in sunlight: the bright dot on the paper is its focus.",
        ),
        "a bold run-in label before a prose example",
    ),
    (
        "de",
        lesson(
            "de",
            "Eine Linse bricht das Licht.\n\n*Beispiel:*\n\n"
            "Eine Lupe im Sonnenlicht bündelt die Strahlen zu einem hellen Punkt.",
        ),
        "an italic run-in label before a prose example",
    ),
    (
        "en",
        lesson(
            "en",
            "Most figures in this unit come from one census.",
            "Source: Statistisches Bundesamt, 2023",
        ),
        "a label-value line ends a section",
    ),
    (
        "de",
        lesson(
            "de",
            "Die Messwerte stehen online zur Verfügung. Man kann sie herunterladen "
            "und in eine Tabelle übernehmen.",
            "In den kommenden Jahren werden die Werte genauer.",
        ),
        "'zur Verfügung' is not an offer",
    ),
    (
        "fr",
        lesson(
            "fr",
            "Dans les années à venir, les réseaux électriques changeront.",
            "Phrases à compléter :\n\n- Il faut que tu ___ (venir).\n- Je doute qu'il "
            "___ (pouvoir).",
        ),
        "'à venir' and an exercise 'à compléter'",
    ),
    (
        "en",
        lesson(
            "en",
            "Press <Enter> to run the program, which includes <stdio.h> first.",
            "The word is pronounced [ðə ˈkæt sæt] in careful speech.",
        ),
        "<Enter>, <stdio.h> and IPA in brackets",
    ),
    (
        "ru",
        lesson(
            "ru",
            "Китайское понятие «путь» записывают знаком (道) и читают «дао».",
            "Это слово встречается в названии книги «Дао дэ цзин».",
        ),
        "a CJK term in parentheses",
    ),
    (
        "de",
        lesson(
            "de",
            "Kant schreibt:\n\n> Aufklärung ist der Ausgang des Menschen [als "
            "Vernunftwesen überhaupt] aus seiner selbstverschuldeten Unmündigkeit.",
            "Der Satz ist bis heute berühmt.",
        ),
        "the editor's brackets in a quotation",
    ),
    (
        "en",
        lesson(
            "en",
            "Frost's poem closes quietly:\n\n> And miles to go before I sleep,\n"
            "> And miles to go before I sleep\n> — Robert Frost",
        ),
        "a verse quotation with an attribution",
    ),
    (
        "zh",
        lesson("zh", "氢气在氧气中燃烧生成水，反应放出大量的热。", "2H₂ + O₂ → 2H₂O"),
        "a chemical equation line at the end",
    ),
    (
        "it",
        lesson(
            "it",
            "Gli stati della materia sono tre:\n\n- solido, con forma propria;\n"
            "- liquido, con volume proprio;\n- gassoso, senza forma né volume propri.",
        ),
        "items ending with ';' and a last one with '.'",
    ),
    (
        "en",
        lesson(
            "en",
            "The function is short:\n\n```python\ndef area(r):\n    return 3.14 * r * r\n```",
            "The configuration file ends like this:\n\n```yaml\nname: demo\nversion: 2\n```",
        ),
        "code blocks that end normally",
    ),
    (
        "pt",
        lesson(
            "pt",
            "Se quiser aprofundar, leia o capítulo 3 do livro didático.",
            "O exercício seguinte retoma a mesma ideia com números maiores.",
        ),
        "'se quiser' in the teacher's voice",
    ),
    (
        "es",
        lesson(
            "es",
            "Si quieres entenderlo mejor, te recomiendo dibujar el esquema.",
            "Un precio de $5 millones no cambia la regla.",
        ),
        "advice and a currency",
    ),
    (
        "ja",
        lesson(
            "ja",
            "英語では This is the book I bought yesterday. のように関係代名詞を省略できます。",
            "日本語にはこのような関係代名詞はありません。",
        ),
        "an English example inside a Japanese paragraph",
    ),
    (
        "en",
        lesson(
            "en",
            "One table to remember:\n\n| Metal | Colour |\n|---|---|\n| Copper | "
            "red |\n| Gold | yellow |",
        ),
        "a table that ends complete",
    ),
]


@pytest.mark.parametrize(("language", "body", "shape"), CLEAN)
def test_clean_shapes_get_no_action(language, body, shape):
    report = run_heuristics(body, language)
    assert report.action in (HeuristicAction.NONE, HeuristicAction.FLAG_TO_JUDGE), (
        shape,
        report.summary(),
    )


DEFECTS = [
    (
        "es",
        "chatbot_artifacts",
        lesson("es", "Sure, here is the part. La refracción desvía la luz al cambiar de medio."),
        "Sure, here",
        "an English reply formula in a Spanish lesson",
    ),
    (
        "en",
        "chatbot_artifacts",
        lesson(
            "en",
            "Refraction bends light at a boundary.",
            "Is there anything else you would like me to cover?",
        ),
        "anything else",
        "an offer at the end, no rule before it",
    ),
    (
        "fr",
        "chatbot_artifacts",
        lesson(
            "fr",
            "La réfraction dévie la lumière.",
            "Je reste à votre disposition pour toute question.",
        ),
        "disposition",
        "availability formula",
    ),
    (
        "uk",
        "chatbot_artifacts",
        lesson("uk", "Заломлення змінює напрям світла.")
        + "\n---\n\nЗвертайтеся, якщо щось незрозуміло!\n",
        "Звертайтеся",
        "sign-off after a rule",
    ),
    (
        "zh",
        "chatbot_artifacts",
        lesson("zh", "我是一个AI语言模型，无法亲自做实验。折射会改变光的方向。"),
        "AI",
        "'I am an AI' inside a section",
    ),
    (
        "en",
        "chatbot_artifacts",
        "# Refraction\n\nHere is a comprehensive lesson on refraction "
        "for your class.\n\n## Bending\n\nLight bends when it changes medium.\n",
        "Here is",
        "a presentative handing the lesson over",
    ),
    (
        "de",
        "placeholders",
        lesson("de", "Die Brechung ändert die Richtung.\n\n<!-- TODO: Grafik einfügen -->"),
        "TODO",
        "a TODO in an HTML comment",
    ),
    (
        "es",
        "placeholders",
        lesson("es", "La refracción cambia la dirección de la luz: {ejemplo}"),
        "{ejemplo}",
        "a single-brace template variable",
    ),
    (
        "it",
        "placeholders",
        lesson(
            "it", "La rifrazione devia la luce.\n\n[inserire qui un grafico della legge di Snell]"
        ),
        "[inserire",
        "bracketed instruction",
    ),
    (
        "en",
        "placeholders",
        lesson("en", "Refraction bends light.", "Example 2: (to be added)"),
        "Example 2",
        "a label followed by a deferral",
    ),
    (
        "en",
        "placeholders",
        lesson(
            "en",
            "A concave lens spreads parallel rays apart.\n\nExamples:\n\n"
            "Convex lenses, by contrast, bring parallel rays to a focus.",
        ),
        "Examples:",
        "a bare label, then prose that moves on",
    ),
    (
        "ja",
        "placeholders",
        lesson("ja", "凹レンズは光を広げます。\n\n例：\n\n一方、凸レンズは光を一点に集めます。"),
        "例：",
        "a bare Japanese label, then prose",
    ),
    (
        "ru",
        "content_truncation",
        lesson("ru", "Перебор элементов списка:\n\n```python\nfor x in items:\n```"),
        "for x in",
        "a Python block ending on ':'",
    ),
    (
        "en",
        "content_truncation",
        lesson("en", "Densities:\n\n| Material | g/cm³ |\n|---|---|\n| Water | 1.0 |\n| Iron | |"),
        "| Iron",
        "the last row missing its last cell",
    ),
    (
        "ja",
        "content_truncation",
        lesson("ja", "光の性質：\n\n- 直進する。\n- 反射する。\n- 屈折す"),
        "屈折す",
        "items end with 。, the last one stops",
    ),
    (
        "en",
        "content_truncation",
        lesson("en", "Light bends at a boundary.", "Then the angle of"),
        "angle of",
        "a section ending mid-sentence before the next",
    ),
    (
        "de",
        "language_consistency",
        lesson(
            "de",
            "Licht wird an Grenzflächen gebrochen. Der Winkel hängt vom Brechungsindex ab.",
            "When light passes from air into water it slows down "
            "and bends towards the normal, and the amount of "
            "bending depends on the refractive index of both media.",
        ),
        "When light",
        "German into English",
    ),
    (
        "pt",
        "language_consistency",
        lesson(
            "pt",
            "Cuando la luz pasa del aire al agua, su velocidad "
            "disminuye y el rayo se acerca a la normal, porque el "
            "índice de refracción del agua es mayor.",
        ),
        "Cuando",
        "Portuguese into Spanish",
    ),
    (
        "ru",
        "language_consistency",
        lesson("ru", "Рекурсия这个方法 решает задачу, сводя её к меньшей."),
        "Рекурсия",
        "four Han characters glued to a word",
    ),
]


@pytest.mark.parametrize(("language", "check", "body", "marker", "shape"), DEFECTS)
def test_defective_shapes_are_found_where_they_are(language, check, body, marker, shape):
    """The check acts on the line holding `marker` (for a cut: where the text stops)."""
    line = next(n for n, text in enumerate(body.splitlines()) if marker in text)
    found = acting(body, language, check)
    assert any(at == line for at, _ in found), (shape, line, found)


def test_self_fix_removes_the_chatter_and_stray_letters_and_keeps_the_lesson():
    body = (
        "# Refraction\n\n## Bending\n\nLight bends at a boundary 的 between media. I hope this "
        "helps your class! The angle depends on the indices.\n\n---\n\nLet me know if you want "
        "more exercises.\n"
    )
    fixed, applied = deterministic_fixes(body, "en")
    assert applied == ["removed a chatbot phrase", "removed stray foreign characters"]
    assert fixed == (
        "# Refraction\n\n## Bending\n\nLight bends at a boundary between media. The angle "
        "depends on the indices.\n"
    )
    assert run_heuristics(fixed, "en").action in (
        HeuristicAction.NONE,
        HeuristicAction.FLAG_TO_JUDGE,
    )
