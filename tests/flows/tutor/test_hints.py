"""The executor's stream split into the visible message and its hints."""

from __future__ import annotations

import pytest

from core.flows.tutor.hints import HintSplitter, readable

TEXT = "Hi! Imagine a pizza.\nHow many slices?\nHint: count them\n- Pista: mira la mitad\n"


@pytest.mark.parametrize("size", [1, 3, 7, 100])
def test_hints_never_reach_the_visible_stream(size: int) -> None:
    splitter = HintSplitter()
    shown = "".join(splitter.feed(TEXT[i : i + size]) for i in range(0, len(TEXT), size))
    message, hints = splitter.finish()
    assert shown == "Hi! Imagine a pizza.\nHow many slices?\n"
    assert message == "Hi! Imagine a pizza.\nHow many slices?"
    assert hints == ["count them", "mira la mitad"]


def test_a_short_last_line_is_released_at_the_end() -> None:
    splitter = HintSplitter()
    shown = splitter.feed("Hi")
    assert shown == "" and splitter.pending() == "Hi"
    assert splitter.finish() == ("Hi", [])


def test_text_without_hints_streams_through() -> None:
    splitter = HintSplitter()
    assert splitter.feed("Zebras ") == "Zebras "
    assert splitter.feed("run.") == "run."
    assert splitter.finish() == ("Zebras run.", [])


def test_a_hint_without_a_word_is_dropped() -> None:
    """What the bundled model wrote as hints once it had to write some: numbers and numerals."""
    splitter = HintSplitter()
    splitter.feed("Recordar fortalece la memoria. ¿Por qué?\nHint: 1.1.1.1.2.1.1.\n")
    splitter.feed("Hint: 2 (I) - (II) - (III)\nHint: 3 × 4 = 12 es un ejemplo\nHint: 42")
    message, hints = splitter.finish()
    assert message == "Recordar fortalece la memoria. ¿Por qué?"
    assert hints == ["2 (I) - (II) - (III)", "3 × 4 = 12 es un ejemplo"]


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        ("TUTOR: 1000000100000200000300000400000.", ""),
        ("TUTOR: 100000100002000030000400005000060000700008000090000.", ""),
        ("0,0,0,0,0,0,0,0,0,0,0,0", ""),
        (
            "TUTOR: Recordar sin mirar fortalece la memoria.",
            "Recordar sin mirar fortalece la memoria.",
        ),
        ("¿Cuánto es 3/4 + 1/4?", "¿Cuánto es 3/4 + 1/4?"),
        (
            "記憶を強くするには、思い出す練習をします。",
            "記憶を強くするには、思い出す練習をします。",
        ),
        ("Tutorías: empezamos por 1/2.", "Tutorías: empezamos por 1/2."),
    ],
)
def test_a_message_without_words_is_no_message(written: str, kept: str) -> None:
    assert readable(written) == kept
