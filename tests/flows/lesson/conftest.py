"""The lesson harness fixture (tests/flows/lesson/harness.py: a copy of the demo vault, the lesson
runtime, `LessonScript` from tests/flows/lesson/script.py answering each call by its node)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.flows.lesson.harness import LessonHarness
from tests.flows.lesson.script import (  # noqa: F401 - GOOD, IDS, SAMPLE_VAULT: for tests
    CONCEPT,  # written before they moved (import them from tests.flows.lesson.script)
    GOOD,
    IDS,
    SAMPLE_VAULT,
    LessonScript,
)


@pytest.fixture
def harness_factory(tmp_path):
    counter = iter(range(100))

    def make(**lesson: Any) -> LessonHarness:
        return LessonHarness(tmp_path / f"h{next(counter)}", **lesson)

    return make
