"""Drawing a screen now, instead of on its next frame.

Textual draws a screen on a fixed frame grid (60 per second by default): a change made just
after a frame waits up to ~17 ms to be seen. When a stretch of work ends (a tutor turn, say) and
the learner is waiting on it, the last frame should not wait for the grid. Textual's own Pilot
draws a screen at once the same way (`Screen._on_timer_update`); it is not public API, so
`draw_now` falls back to a normal refresh if the method ever goes away.
"""

from __future__ import annotations

from typing import Any


def draw_now(screen: Any) -> bool:
    """Lay out and draw `screen`'s pending changes now; whether it could.

    Nothing happens inside `App.batch_update` (Textual holds frames there) or when the screen
    is not the one shown: then the change is drawn on the next frame, as usual."""
    update = getattr(screen, "_on_timer_update", None)
    if update is None or not screen.is_current or getattr(screen.app, "_batch_count", 0):
        screen.refresh()
        return False
    update()
    return True
