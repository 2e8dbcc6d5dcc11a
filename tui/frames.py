"""Drawing part of a screen now, instead of on its next frame.

Textual draws a screen on a fixed frame grid (60 per second by default): a change made just
after a frame waits up to ~17 ms to be seen. When a stretch of work ends (a tutor turn, say) and
the learner waits on it, the last frame should not wait for the grid.

Widgets tell their screen what changed only when they next go idle, so the screen is told here
which regions to repaint (the widgets' own caches were cleared when they changed) and drawn at
once, the way Textual's Pilot draws a screen (`Screen._on_timer_update`). That method is not
public API: if it goes away, the change waits for the next frame, as usual. A change of layout
(a widget's size) still waits for the next frame; only the widgets' content is drawn now.
"""

from __future__ import annotations

from typing import TypeVar

from textual.geometry import Region
from textual.screen import Screen

Result = TypeVar("Result")
"""Whatever the screen returns when dismissed (these functions only draw it)."""


def in_view(screen: Screen[Result]) -> bool:
    """Whether `screen` shows: it is the top screen, or every screen above it lets it show
    through (a modal's translucent background).

    Textual's `Screen.is_current` also holds for the screen just under the top one, shown or
    not: a screen under the tutor that updated its widgets on a timer laid itself out and had
    the tutor repaint those regions, twice a second."""
    app = screen.app
    stack = app.screen_stack
    if screen not in stack:
        return False
    above = stack[stack.index(screen) + 1 :]
    return all(other.styles.background.a < 1 for other in above)


def draw_now(screen: Screen[Result], *regions: Region) -> bool:
    """Repaint `regions` of `screen` (screen coordinates) now; whether it could.

    Nothing is drawn inside `App.batch_update` (Textual holds frames there) or when the screen
    is not the one shown."""
    update = getattr(screen, "_on_timer_update", None)
    if update is None or not screen.is_current or screen.app._batch_count:
        return False
    regions = tuple(region for region in regions if region)
    if regions:
        screen.refresh(*regions)
        update()
    return bool(regions)
