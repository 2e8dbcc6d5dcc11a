"""Mastery over time in the app: the tutor's side list and its f3, the progress screen's chart."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from core.store import Store
from tests.flows.tutor.scripted import TutorScript
from tests.tui import test_tutor_screen as tutor
from tests.tui.helpers import wait_for
from tui.app import NoemaApp
from tui.screens.progress import ProgressScreen
from tui.widgets.mastery_chart import MasteryChart, PracticeList, TrendRow

SUBTOPIC = "Psicología del aprendizaje / Memoria / Práctica de recuperación"
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
HISTORY = [
    # (session, kind, ref, title, mastery, when): written by hand, three sessions over a month
    ("s1", "subtopic", SUBTOPIC, "Práctica de recuperación", 0.0, "2026-02-01T10:00:00+00:00"),
    ("s1", "subtopic", SUBTOPIC, "Práctica de recuperación", 0.17, "2026-02-01T10:05:00+00:00"),
    ("s1", "subtopic", SUBTOPIC, "Práctica de recuperación", 0.33, "2026-02-01T10:09:00+00:00"),
    ("s2", "subtopic", SUBTOPIC, "Práctica de recuperación", 0.5, "2026-02-10T18:00:00+00:00"),
    ("s3", "subtopic", SUBTOPIC, "Práctica de recuperación", 0.67, "2026-02-27T08:00:00+00:00"),
    ("s3", "subtopic", SUBTOPIC, "Práctica de recuperación", 1.0, "2026-02-27T08:10:00+00:00"),
    ("s1", "concept", "c-zdp", "Zona de desarrollo próximo 🧠", 0.25, "2026-02-01T10:09:00+00:00"),
    (
        "s4",
        "concept",
        "c-metacog",
        "Metacognición — «pensar sobre pensar»",
        0.1,
        "2026-02-20T09:00:00+00:00",
    ),
]


def seed_history(app: NoemaApp, rows=HISTORY) -> None:
    store = Store(app.settings.store_path)
    try:
        store.executemany(
            "INSERT INTO tutor_mastery_history (session_id, kind, ref, title, mastery,"
            " recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
    finally:
        store.close()


def pin_now(monkeypatch) -> None:
    monkeypatch.setattr("core.flows.tutor.progress.current_time", lambda: NOW)


def rows(screen: ProgressScreen) -> list[str]:
    return [item.title for item in screen.items]


async def open_progress(pilot, app: NoemaApp) -> ProgressScreen:
    """Home, then p: the progress screen with its items loaded."""
    await wait_for(pilot, lambda: app.services is not None)
    await wait_for(pilot, lambda: len(app.screen.query(TrendRow)) > 0)
    await pilot.press("p")
    await wait_for(pilot, lambda: isinstance(app.screen, ProgressScreen))
    screen = app.screen
    await wait_for(pilot, lambda: len(screen.items) == 3)
    return screen


async def test_progress_lists_most_due_first_and_charts_the_highlighted(
    tmp_path: Path, monkeypatch
) -> None:
    pin_now(monkeypatch)
    app = tutor.make_app(tmp_path, TutorScript())
    seed_history(app)
    async with app.run_test(size=tutor.SIZE) as pilot:
        screen = await open_progress(pilot, app)
        # ZDP: 0.6 x 0.75 + 0.4 x 1 (a month) = 0.85; Metacognición 0.54 + 0.4 x 9.1/14 = 0.80;
        # the subtopic, mastered two days ago: 0.06
        assert rows(screen) == [
            "Zona de desarrollo próximo 🧠",
            "Metacognición — «pensar sobre pensar»",
            "Práctica de recuperación",
        ]
        chart = screen.query_one(MasteryChart)
        detail = screen.query_one("#progress-detail")
        await wait_for(pilot, lambda: "Zona de desarrollo" in str(detail.render()))
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: "0% → 100% in 6 changes over 3" in str(detail.render()))
        title, points = chart.shown
        assert title == "Práctica de recuperación"
        assert [p.mastery for p in points] == [0.0, 0.17, 0.33, 0.5, 0.67, 1.0]
        await pilot.press("escape")
        assert not isinstance(app.screen, ProgressScreen)


async def test_the_tutor_shows_the_session_across_sessions_and_f3_opens_its_chart(
    tmp_path: Path,
) -> None:
    app = tutor.make_app(tmp_path, TutorScript(["right"]))
    seed_history(app, HISTORY[:3])  # an earlier session on the same subtopic
    async with app.run_test(size=tutor.SIZE) as pilot:
        screen = await tutor.open_tutor(pilot, app)
        practice = screen.query_one(PracticeList)
        # choosing what to learn: what is due shows
        await wait_for(pilot, lambda: len(practice.query(TrendRow)) == 1)
        assert practice.border_title == "Due for practice"
        await tutor.pick_retrieval(pilot, screen)
        await wait_for(pilot, tutor.turns_done(screen, 1))
        screen.query_one("#answer").value = "Recordar sin mirar"
        await pilot.press("enter")
        await wait_for(pilot, tutor.turns_done(screen, 3))
        # the answer moved the subtopic's mastery: its line now has the new session's point
        await wait_for(
            pilot,
            lambda: (
                practice.border_title == "Across sessions"
                and any(len(r.values) == 4 for r in practice.query(TrendRow))
            ),
        )
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, ProgressScreen))
        progress = app.screen
        await wait_for(pilot, lambda: bool(progress.items))
        current = progress.current()
        assert current is not None and (current.kind, current.ref) == ("subtopic", SUBTOPIC)
        assert current.sessions == 2


async def test_the_command_palette_opens_mastery_over_time(tmp_path: Path) -> None:
    app = tutor.make_app(tmp_path, TutorScript())
    seed_history(app)
    async with app.run_test(size=tutor.SIZE) as pilot:
        await wait_for(pilot, lambda: app.services is not None)
        await pilot.press("ctrl+p", *"mastery over")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ProgressScreen))
        await wait_for(pilot, lambda: len(app.screen.items) == 3)


async def test_the_practice_list_updates_its_rows_in_place() -> None:
    """The tutor shows the list again after every turn: the same number of rows is redrawn
    in place (remounting them cost more than the rest of the turn's drawing), a different
    number is mounted anew."""
    from textual.app import App

    from core.flows.tutor.progress import Tracked

    def item(title: str, mastery: float) -> Tracked:
        return Tracked(
            "concept", f"c-{title}", title, mastery, "2026-02-27T08:00:00+00:00", 1, 0.2, 1.0
        )

    class ListApp(App[None]):
        def compose(self):
            yield PracticeList()

    async with ListApp().run_test(size=(60, 10)) as pilot:
        practice = pilot.app.query_one(PracticeList)
        practice.show([(item("Ойлер ∑", 0.25), [0.1, 0.25])])
        await wait_for(pilot, lambda: len(practice.query(TrendRow)) == 1)
        before = practice.query_one(TrendRow)
        practice.show([(item("Ойлер ∑", 0.75), [0.1, 0.25, 0.75])])
        await pilot.pause()
        assert list(practice.query(TrendRow)) == [before]
        assert before.query_one(".trend-value").render().plain == "75%"
        assert before.values == [0.1, 0.25, 0.75]
        practice.show([(item("a", 0.5), [0.5]), (item("b 🍕", 0.0), [0.0])])
        await wait_for(pilot, lambda: len(practice.query(TrendRow)) == 2)
        rows = list(practice.query(TrendRow))
        assert before not in rows and [r.item.title for r in rows] == ["a", "b 🍕"]
        assert rows[0].query_one(".no-trend").display  # one point: no sparkline
        # the same list again (the tutor shows it after every turn): nothing is redrawn
        shown = [(item("a", 0.5), [0.5]), (item("b 🍕", 0.0), [0.0])]
        practice.show(shown, "f3: progress", "Across sessions")
        await pilot.pause()
        redrawn: list[object] = []
        for widget in [practice, *practice.query("*")]:
            widget.refresh = lambda *a, w=widget, **k: redrawn.append(w)  # type: ignore[method-assign]
        practice.show(shown, "f3: progress", "Across sessions")
        await pilot.pause()
        assert redrawn == [] and practice.border_title == "Across sessions"
        assert practice.border_subtitle == "f3: progress"
