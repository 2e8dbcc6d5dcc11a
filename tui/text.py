"""Cutting text to a width the way a reader expects: at a word boundary, with an ellipsis.

Whatever is cut must stay reachable in full (a detail pane, a tooltip); these helpers only
decide how the short form reads.
"""

from __future__ import annotations

from rich.cells import cell_len

ELLIPSIS = "…"
MIN_WORD_SHARE = 0.25
"""Cut at a space only when it keeps at least this share of the width (else mid-word: a single
very long word, a path, an id)."""


def clip(text: str, width: int) -> str:
    """`text` on one line within `width` cells: whole, or cut at a word boundary with "…"."""
    line = " ".join(text.split())
    if cell_len(line) <= width:
        return line
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    cut = ""
    for char in line:
        if cell_len(cut + char) > room:
            break
        cut += char
    space = cut.rfind(" ")
    if space >= MIN_WORD_SHARE * room:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—") + ELLIPSIS


def clip_path(path: str, width: int) -> str:
    """A path within `width` cells, keeping its end (the file name): "…/Sources/Deep Work.md"."""
    if cell_len(path) <= width:
        return path
    if width <= 1:
        return ELLIPSIS[:width]
    tail = ""
    for char in reversed(path):
        if cell_len(char + tail) > width - 1:
            break
        tail = char + tail
    slash = tail.find("/")
    if 0 <= slash < len(tail) - 1 and len(tail) - slash >= MIN_WORD_SHARE * (width - 1):
        tail = tail[slash:]
    return ELLIPSIS + tail
