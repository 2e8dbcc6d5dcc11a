"""The normalization screen finishes an apply a note edit interrupted through the same service
as the CLI: `p` plans again over the edit and says so; the user's text is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.merges.journal import ApplyInterrupted
from core.merges.service import Merges
from tests.tui.helpers import wait_for
from tests.tui.test_normalization_screen import make_app
from tui.screens.normalization import NormalizationScreen

LATER = "08 - Ideas/Práctica intercalada.md"
ADDED = "\nEditado en Obsidian durante la fusión ✍️\n"


def interrupt_with_an_edit(merges: Merges, review_id: str, root: Path) -> None:
    merges.reviews.accept_remaining(review_id)
    plan = merges.plan(review_id)
    real, count = merges.vault.writer.write, {"n": 0}

    def write(path, text, *, expected_hash):
        written = real(path, text, expected_hash=expected_hash)
        count["n"] += 1
        if count["n"] == 1:  # the user saves a note the plan rewrites later
            with open(root / LATER, "a", encoding="utf-8") as note:
                note.write(ADDED)
        return written

    merges.vault.writer.write = write
    with pytest.raises(ApplyInterrupted):
        merges.apply(plan)
    merges.vault.writer.write = real


async def test_p_finishes_an_apply_an_edit_interrupted(tmp_path: Path) -> None:
    app, root = make_app(tmp_path, seed_review=True)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        merges = Merges(app.services.store, app.services.vault)
        interrupt_with_an_edit(merges, "f" * 32, root)
        await pilot.press("n")
        screen = app.screen
        assert isinstance(screen, NormalizationScreen)
        await wait_for(pilot, lambda: screen.review_status == "interrupted")
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.review_status == "applied")
        status = str(screen.query_one("#status-line").render())
        assert f"planned again over your edits of {LATER}" in status
    assert (root / LATER).read_text(encoding="utf-8").endswith(ADDED)
    assert not (root / "08 - Ideas" / "ZDP.md").exists()
