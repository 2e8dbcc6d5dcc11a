"""The extraction harness fixture: `extraction_harness` (tests/flows/extraction/script.py) over
the shared `FlowHarness` (tests/flow_harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.extraction.script import extraction_harness


@pytest.fixture
def harness(tmp_path: Path):
    return lambda script=None, **kw: extraction_harness(tmp_path, script, **kw)
