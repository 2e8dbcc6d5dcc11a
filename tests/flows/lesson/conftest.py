"""The lesson harness fixture: `lesson_harness` (tests/flows/lesson/script.py) over the shared
`FlowHarness` (tests/flow_harness.py), one per call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.lesson.script import lesson_harness


@pytest.fixture
def harness_factory(tmp_path: Path):
    return lambda **lesson: lesson_harness(tmp_path, **lesson)
