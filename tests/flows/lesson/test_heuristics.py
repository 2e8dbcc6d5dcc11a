"""Every free check: clean lessons (code, tech terms, eight languages) pass, planted defects fail."""

from __future__ import annotations

import random

import pytest

from core.flows.lesson.heuristics import (
    CheckStatus,
    HeuristicAction,
    check_chatbot_artifacts,
    check_content_truncation,
    check_language_consistency,
    check_min_section_length,
    check_placeholders,
    parse_lesson,
    run_heuristics,
    word_count,
)
from tests.flows.lesson.corpus import (
    DEFECTS,
    DETECTING_CHECK,
    LANGUAGES,
    build_corpus,
    clean_lesson,
)
from tests.flows.lesson.corpus_defects import plant

CLEAN_ES = """# Recursión

## Introducción

La recursión resuelve un problema reduciéndolo a una instancia más pequeña del mismo problema.
Usa `factorial(n)` con un caso base; el framework React y la API de JSON no cambian nada aquí.
Cada llamada espera a la siguiente hasta llegar al caso base, y entonces los resultados vuelven.

```python
def factorial(n):
    # TODO: this comment is code, not a placeholder. The quick brown fox jumps over the lazy dog.
    return 1 if n <= 1 else n * factorial(n - 1)
```

## Resumen

Toda función recursiva necesita un caso base que detenga el descenso, de lo contrario la pila
crece hasta que Python lanza un `RecursionError`. Pensar primero en la entrada más pequeña suele
revelar ese caso base con rapidez, y el resto de la función se escribe casi solo después.
"""


def test_clean_lesson_with_code_and_tech_terms_passes():
    report = run_heuristics(CLEAN_ES, "es", min_section_words=30)
    assert report.passed, report.summary()
    assert report.action == HeuristicAction.NONE


@pytest.mark.parametrize("language", LANGUAGES)
def test_clean_lessons_pass_in_every_language(language):
    rng = random.Random(language)
    for _ in range(10):
        report = run_heuristics(clean_lesson(language, rng), language)
        assert report.passed, (language, report.summary())


def test_stray_han_in_russian_is_self_fixable_and_many_regenerate():
    base = "# Урок\n\n## Введение\n\nРекурсия решает задачу, сводя её к меньшей задаче.\n"
    stray = check_language_consistency(parse_lesson(base.replace("задачу", "задачу 的")), "ru")
    assert stray.status == CheckStatus.WARN and stray.action == HeuristicAction.SELF_FIX
    assert stray.metrics["foreign_characters"] == 1
    many = check_language_consistency(parse_lesson(base.replace("задачу", "这个方法很好")), "ru")
    assert many.status == CheckStatus.FAIL and many.action == HeuristicAction.REGENERATE
    assert many.findings[0].sample.startswith("这")


def test_code_and_inline_code_are_skipped_by_the_script_check():
    body = "# T\n\n## A\n\nUse the `print('привет 世界')` call.\n\n```\nпривет = '世界'\n```\n"
    assert check_language_consistency(parse_lesson(body), "en").passed


def test_latin_terms_allowed_but_english_sentence_in_russian_fails():
    ok = "# Т\n\n## А\n\nКомпонент React и HTTP API возвращают JSON через fetch.\n"
    assert check_language_consistency(parse_lesson(ok), "ru").passed
    bad = ok + "\nThis paragraph was written in English by mistake and keeps going on.\n"
    result = check_language_consistency(parse_lesson(bad), "ru")
    assert result.status == CheckStatus.FAIL


def test_english_paragraph_in_spanish_lesson_found_by_detector():
    body = (
        "# Lección\n\n## Idea\n\nLa recursión resuelve un problema reduciéndolo a una instancia más "
        "pequeña del mismo problema y necesita un caso base.\n\nAn HTTP API exposes resources "
        "through URLs and verbs, and the server answers with a status code and a body.\n"
    )
    result = check_language_consistency(parse_lesson(body), "es")
    assert result.status == CheckStatus.FAIL
    assert result.metrics["foreign_paragraphs"] == 1
    assert "en" in result.findings[0].message


def test_japanese_paragraph_without_kana_is_flagged():
    body = "# 課\n\n## 一\n\n数据库索引就像书末尾的索引一样工作引擎不必扫描每一行而是沿着有序的结构找到记录。\n"
    assert check_language_consistency(parse_lesson(body), "ja").status == CheckStatus.FAIL
    assert check_language_consistency(parse_lesson(body), "zh").passed


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ("The base case stops the", "mid-sentence"),
        ("```python\ndef f():\n    return 1\n", "never closed"),
        ("- First point.\n- ", "empty item"),
        ("This is **very important and", "never closed"),
        ("See [the docs](https://example.org/do", "never closed"),
    ],
)
def test_truncation_signs(tail, message):
    body = "# T\n\n## A\n\nA complete sentence here.\n\n" + tail
    result = check_content_truncation(parse_lesson(body))
    assert result.status == CheckStatus.FAIL
    assert any(message in f.message for f in result.findings), result.findings


def test_one_truncation_sign_partial_regen_several_regenerate():
    one = check_content_truncation(parse_lesson("# T\n\n## A\n\nIt ends in the"))
    assert one.action == HeuristicAction.PARTIAL_REGEN
    two = check_content_truncation(
        parse_lesson("# T\n\n## A\n\nThis section stops in the\n\n## B\n\nAnd this one too, in the")
    )
    assert two.action == HeuristicAction.REGENERATE
    assert [f.section for f in two.findings] == ["A", "B"]


def test_a_period_after_unclosed_bold_is_markup_not_a_cut():
    """Broken markdown is hygiene (spec 001, phase 2), not truncation: the sentence ended."""
    body = "# T\n\n## A\n\nA complete sentence here.\n\nThis is **very important."
    assert check_content_truncation(parse_lesson(body)).passed


def test_complete_endings_are_not_truncation():
    for tail in (
        "Done.",
        "¿Listo?",
        "完成。",
        "```js\nx()\n```",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "- Python\n- Rust",
        "He said «fin.»",
    ):
        result = check_content_truncation(parse_lesson(f"# T\n\n## A\n\nText.\n\n{tail}\n"))
        assert result.passed, (tail, result.findings)


def test_min_section_length_warns_and_empty_fails():
    long = " ".join(["palabra"] * 60) + "."
    body = f"# T\n\n## Larga\n\n{long}\n\n## Corta\n\nSolo unas pocas palabras.\n"
    result = check_min_section_length(parse_lesson(body), 50)
    assert result.status == CheckStatus.WARN and result.action == HeuristicAction.FLAG_TO_JUDGE
    assert [f.section for f in result.findings] == ["Corta"]
    body = f"# T\n\n## Larga\n\n{long}\n\n## Vacía\n\n## Otra\n\n{long}\n"
    empty = check_min_section_length(parse_lesson(body), 50)
    assert empty.status == CheckStatus.FAIL and empty.action == HeuristicAction.PARTIAL_REGEN
    assert [(f.section, f.line) for f in empty.findings] == [("Vacía", 6)]
    # a heading with nothing after it at the very end is a cut, not an empty section
    cut = parse_lesson(f"# T\n\n## Larga\n\n{long}\n\n## Vacía\n")
    assert check_min_section_length(cut, 50).passed
    assert check_content_truncation(cut).findings[0].line == 6


def test_cjk_words_are_counted_by_characters():
    assert word_count("数据库索引就像书末尾的索引") == 6
    assert word_count("one two three") == 3


@pytest.mark.parametrize(
    "text",
    [
        "TODO: add an example.",
        "Lorem ipsum dolor sit amet.",
        "[insert example here]",
        "[insertar ejemplo aquí]",
        "{{example}}",
    ],
)
def test_placeholders_fail(text):
    result = check_placeholders(parse_lesson(f"# T\n\n## A\n\nReal text. {text}\n"))
    assert result.status == CheckStatus.FAIL and result.action == HeuristicAction.PARTIAL_REGEN


def test_spanish_word_todo_is_not_a_placeholder():
    assert check_placeholders(
        parse_lesson("# T\n\n## A\n\nTodo el código y todo lo demás.\n")
    ).passed


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Sure, here is the lesson."),
        ("es", "¡Claro, aquí tienes la lección!"),
        ("ru", "Надеюсь, это поможет."),
        ("zh", "作为一个AI，我不能运行代码。"),
        ("fr", "J'espère que cela vous aide."),
        ("es", "As an AI, I cannot run code."),
    ],
)
def test_chatbot_artifacts_in_english_and_the_lesson_language(language, text):
    result = check_chatbot_artifacts(parse_lesson(f"# T\n\n## A\n\n{text}\n"), language)
    assert result.status == CheckStatus.WARN and result.action == HeuristicAction.SELF_FIX


def test_report_action_is_the_worst_and_names_sections():
    body = "# T\n\n## Uno\n\nTODO: write this.\n\n## Dos\n\nContent here ends fine.\n"
    report = run_heuristics(body, "en", min_section_words=3)
    assert report.action == HeuristicAction.PARTIAL_REGEN
    assert report.sections_to_regenerate() == ["Uno"]
    assert "placeholders: FAIL" in report.summary()


@pytest.mark.parametrize("defect", DEFECTS)
def test_planted_defects_are_caught(defect):
    rng = random.Random(defect)
    for language in LANGUAGES:
        body, detail = plant(defect, clean_lesson(language, rng), language, rng)
        report = run_heuristics(body, language)
        assert not report.check(DETECTING_CHECK[defect]).passed, (language, detail)


def test_corpus_has_every_label():
    corpus = build_corpus(per_language=1)
    assert {s.defect for s in corpus} == {None, *DEFECTS}
    assert {s.language for s in corpus} == set(LANGUAGES)


def test_math_and_number_forms_are_not_foreign_letters():
    body = "# T\n\n## A\n\nNested loops cost O(n²), λ-calculus uses ½ and ① and ℝ and µs.\n"
    assert check_language_consistency(parse_lesson(body), "en").passed
