"""Home's indexing bar: it moves with the sync's counts and goes when the sync is over."""

from __future__ import annotations

from textual.widgets import ProgressBar

from tests.tui.helpers import settle, wait_for
from tui.widgets.index_bar import IndexBar


async def test_indexing_a_larger_vault_moves_the_bar_then_it_goes(
    make_app, settings, monkeypatch
) -> None:
    monkeypatch.setattr("tui.app.PROGRESS_EVERY_S", 0.0)  # every file: the test sees it move
    seen: list[tuple[int, int]] = []
    show = IndexBar.show

    def watched(self, done, total, path):
        seen.append((done, total))
        show(self, done, total, path)

    monkeypatch.setattr(IndexBar, "show", watched)
    app = make_app()  # (indexes the vault as it is)
    folder = settings.vault.path / "Nuevas"
    folder.mkdir()
    for n in range(300):  # new notes since: what the sync reads
        (folder / f"Nota {n} — ½ 🍕.md").write_text(f"# Nota {n}\n\ntexto {n}\n", encoding="utf-8")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        bar = app.screen.query_one(IndexBar)
        assert not bar.has_class("-shown") and bar.region.height == 0  # no room when idle
        await pilot.press("i")
        await wait_for(pilot, lambda: seen and seen[-1][0] == -1, timeout=60)
        counts = [done for done, total in seen if total > 0]
        assert len(set(counts)) > 3 and counts == sorted(counts)  # it moved, forwards
        total = max(total for _, total in seen)
        assert total >= 300 and counts[-1] == total and counts[-2] < total
        await pilot.pause()
        assert not bar.has_class("-shown")


async def test_the_bar_shows_counts_and_pulses_while_files_are_listed(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        bar = app.screen.query_one(IndexBar)
        bar.show(0, 0, "starting")
        await pilot.pause()
        assert bar.has_class("-shown") and bar.query_one(ProgressBar).total is None
        assert "listing files" in str(bar.query_one("#index-count").render())
        bar.show(1204, 5000, "03 - Sources/Ébauche 🍕.md")
        await pilot.pause()
        assert bar.query_one(ProgressBar).progress == 1204
        assert "1,204/5,000 files" in str(bar.query_one("#index-count").render())
        assert "Ébauche" in str(bar.query_one("#index-path").render())


def test_the_demo_draws_a_bar_at_a_terminal_and_lines_elsewhere(monkeypatch) -> None:
    import sys

    from tui.demo import IndexBarReport, IndexReport, index_progress

    said: list[str] = []
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    with index_progress(said.append) as progress:  # a log, CI: lines
        assert isinstance(progress, IndexReport)
        progress(3, 10, "a.md")
    assert said == ["  indexing notes: 3/10  a.md"]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    with index_progress(said.append) as bar:  # a terminal: a bar with its counts
        assert isinstance(bar, IndexBarReport)
        bar(0, 0, "")
        bar(40, 120, "03 - Sources/Ébauche.md")
        task = bar.bar.tasks[0]
        assert (task.completed, task.total) == (40, 120) and "Ébauche" in task.description
    assert len(said) == 1  # no lines besides the bar
