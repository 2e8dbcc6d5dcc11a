"""The normalization harness fixture: `normalization_harness` (tests/flows/normalization/script.py)
over the shared `FlowHarness` (tests/flow_harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.normalization.script import normalization_harness


@pytest.fixture
def harness(tmp_path: Path):
    return lambda generator, evaluator, **settings: normalization_harness(
        tmp_path, generator, evaluator, **settings
    )
