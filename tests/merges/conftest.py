"""The `mv` fixture: tests/merges/merge_vault.py's MergeVault (a copy of the demo vault, indexed,
with a review of its planted near-duplicates)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.merges.merge_vault import (  # noqa: F401 - kept for tests written before the move
    PLANTED,
    SAMPLE,
    MergeVault,
    index_rows,
    snapshot,
)


@pytest.fixture
def mv(tmp_path: Path) -> MergeVault:
    return MergeVault(tmp_path)
