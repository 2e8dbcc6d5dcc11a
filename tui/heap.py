"""Keeping full garbage collections out of the frames.

Everything the app loads at start (litellm, LangGraph, Textual, the index) lives as long as the
app. CPython's full collections walk all of it: ~80 ms on this kind of machine, long enough to
stall a frame in the middle of a streamed reply. Frozen once the services are open, it is moved
out of the collector's reach (`gc.freeze`), and full collections only walk what came after.
"""

from __future__ import annotations

import gc


def settle_heap() -> int:
    """Freeze what is alive now; returns how many objects the collector no longer walks."""
    gc.freeze()
    return gc.get_freeze_count()
