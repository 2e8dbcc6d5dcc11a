"""Unified diffs of note text: what a human reviews before a rewrite is accepted."""

from __future__ import annotations

import difflib


def unified_diff(path: str, old: str, new: str) -> str:
    """The change from `old` to `new` as a unified diff headed `a/<path>` / `b/<path>`.

    Every line ends in a newline, also when a side lacks a final one, so diffs of several
    files can be concatenated and still read line by line.
    """
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
