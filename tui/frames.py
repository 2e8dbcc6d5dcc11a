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

from typing import Any

from textual.geometry import Region


def draw_now(screen: Any, *regions: Region) -> bool:
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
