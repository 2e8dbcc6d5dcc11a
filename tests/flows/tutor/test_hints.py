"""The executor's stream split into the visible message and its hints."""

from __future__ import annotations

import pytest

from core.flows.tutor.hints import HintSplitter

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
