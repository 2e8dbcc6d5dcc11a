"""Keeping full garbage collections out of the frames.

Everything the app loads at start (litellm, LangGraph, Textual, the index) lives as long as the
app. CPython's full collections walk all of it: ~80 ms on this kind of machine, long enough to
stall a frame in the middle of a streamed reply. Frozen once the services are open, it is moved
out of the collector's reach (`gc.freeze`), and full collections only walk what came after.

What a screen loads on first use lives as long too: the tutor chat's first reply imports the
Markdown renderer and builds the screen's widgets and style caches, about as many objects again
as the collector walked at all. Once that reply is drawn they are settled as well
(`settle_heap_again`): full collections over 16 tutor turns went from 2 (walking ~46,000 and
~52,000 objects, 103-117 ms of the event loop in all) to 1 (~23,000 objects, 14-22 ms).
"""

from __future__ import annotations

import gc


def settle_heap() -> int:
    """Freeze what is alive now; returns how many objects the collector no longer walks."""
    gc.freeze()
    return gc.get_freeze_count()


def settle_heap_again() -> int:
    """Collect, then freeze what is alive (the garbage goes first: frozen, it would never be
    collected). A full collection itself: call it once, when nobody waits on a frame."""
    gc.collect()
    return settle_heap()
