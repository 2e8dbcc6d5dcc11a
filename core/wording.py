"""Small helpers for the words noema shows people (CLI lines, screens, dialogs)."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """`1 source`, `2 sources`, `0 sources` (English nouns that take an s)."""
    return f"{count} {word}{'' if count == 1 else 's'}"
