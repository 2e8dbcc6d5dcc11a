"""Drawing now instead of on the next frame, and the frozen start-up heap."""

from __future__ import annotations

import gc

from textual.app import App
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui.frames import draw_now, in_view
from tui.heap import settle_heap


class Probe(Static):
    """A Static that remembers what each frame drew of it."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.drawn: list[str] = []

    def render_lines(self, crop):
        lines = super().render_lines(crop)
        self.drawn.append("".join(line.text for line in lines))
        return lines


class ProbeApp(App):
    def compose(self):
        yield Probe("before")


async def test_draw_now_draws_a_change_before_the_widget_reports_it() -> None:
    app = ProbeApp()
    async with app.run_test(size=(30, 5)) as pilot:
        probe = app.query_one(Probe)
        await pilot.pause()
        probe.update("after", layout=False)
        assert draw_now(app.screen, probe.region)  # no await: drawn synchronously
        assert "after" in probe.drawn[-1]


async def test_draw_now_leaves_a_batch_to_the_next_frame() -> None:
    app = ProbeApp()
    async with app.run_test(size=(30, 5)) as pilot:
        probe = app.query_one(Probe)
        await pilot.pause()
        drawn = len(probe.drawn)
        with app.batch_update():
            probe.update("later", layout=False)
            assert not draw_now(app.screen, probe.region)
        assert len(probe.drawn) == drawn
        await pilot.pause()
        assert "later" in probe.drawn[-1]  # on the next frame, as usual


async def test_a_screen_is_in_view_only_when_nothing_opaque_covers_it() -> None:
    app = ProbeApp()
    async with app.run_test(size=(30, 5)) as pilot:
        under = app.screen
        await app.push_screen(Screen())
        await pilot.pause()
        assert under.is_current  # Textual counts the screen just under the top one
        assert not in_view(under) and in_view(app.screen)
        await app.push_screen(ModalScreen())  # translucent: the screen under it shows
        await pilot.pause()
        middle = app.screen_stack[-2]
        assert in_view(middle) and not in_view(under)
        app.pop_screen()
        app.pop_screen()
        await pilot.pause()
        assert in_view(under)


def test_settle_heap_takes_the_live_objects_out_of_full_collections() -> None:
    try:
        before = gc.get_freeze_count()
        marker = [object() for _ in range(1000)]
        assert settle_heap() >= before + len(marker)
    finally:
        gc.unfreeze()
