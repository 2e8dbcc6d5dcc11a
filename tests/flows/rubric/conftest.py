"""The rubric harness fixture: `rubric_harness` (tests/flows/rubric/notes.py) over the shared
`FlowHarness` (tests/flow_harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.rubric.notes import rubric_harness


@pytest.fixture
def rubric(tmp_path: Path):
    return lambda responses, **settings: rubric_harness(tmp_path, responses, **settings)
