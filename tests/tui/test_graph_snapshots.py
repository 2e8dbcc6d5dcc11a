"""Pictures of issue 19's views at 160x48 and 100x30: mastery over time (home's practice list,
the progress screen's chart), the concept graph around a note, merge clusters as trees.
Same conventions as test_screen_snapshots (its fixtures, `quiet` and `scrolls_settled`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.tutor.scripted import TutorScript
from tests.tui import test_concept_graph_screen as graph
from tests.tui import test_merge_clusters as clusters
from tests.tui import test_normalization_screen as normalization
from tests.tui import test_progress_screen as progress
from tests.tui import test_tutor_screen as tutor
from tests.tui.helpers import wait_for
from tests.tui.test_screen_snapshots import (  # noqa: F401  (autouse fixtures)
    SIZES,
    fixed_run_ids,
    no_toasts,
    quiet,
    still_clock,
)
from tui.widgets.mastery_chart import TrendRow


@pytest.fixture
def practiced_app(tmp_path: Path, monkeypatch):
    """The sample vault's app with three sessions' mastery history, "now" pinned after them."""
    progress.pin_now(monkeypatch)
    app = tutor.make_app(tmp_path, TutorScript())
    progress.seed_history(app)
    return app


@pytest.mark.parametrize("size", SIZES)
def test_home_with_practice_due(practiced_app, snap_compare, size):
    app = practiced_app

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: app.services is not None)
        await wait_for(pilot, lambda: len(app.screen.query(TrendRow)) == 3)
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_progress_chart(practiced_app, snap_compare, size):
    app = practiced_app

    async def run_before(pilot) -> None:
        screen = await progress.open_progress(pilot, app)
        await pilot.press("down", "down")
        await wait_for(
            pilot, lambda: "6 changes" in str(screen.query_one("#progress-detail").render())
        )
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_concept_graph_after_following_a_relation(make_app, snap_compare, size):
    app = make_app()

    async def run_before(pilot) -> None:
        await graph.open_from_palette(pilot, app, "practica de recu", "Práctica de recuperación")
        await graph.cursor_to(pilot, app, "out", "Repetición espaciada")
        await pilot.press("enter")
        await wait_for(pilot, lambda: graph.centre(app) == "Repetición espaciada")
        await graph.cursor_to(pilot, app, "in", "Práctica de recuperación")
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_merge_clusters_as_trees(tmp_path: Path, snap_compare, size):
    app, _root = normalization.make_app(tmp_path)
    clusters.seed_chain(app)

    async def run_before(pilot) -> None:
        await clusters.open_clusters(pilot, app)
        await clusters.highlight(pilot, app, "Práctica intercalada")
        await quiet(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
