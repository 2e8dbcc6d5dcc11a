"""Indexing the vault as a bar that moves: files read of all files, and the latest one.

Home shows it while an index sync runs (`IndexProgress` messages, `done` -1 when it is over);
it takes no room otherwise.
"""

from __future__ import annotations

from typing import Unpack

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from tui.text import clip_path
from tui.widgets.options import WidgetOptions


class IndexBar(Horizontal):
    """'Indexing', a progress bar with its count (e.g. 1,204/5,000) and the file being read."""

    DEFAULT_CSS = """
    IndexBar { height: 1; margin: 0 1; display: none; }
    IndexBar.-shown { display: block; }
    IndexBar #index-title { width: auto; text-style: bold; margin: 0 1 0 0; }
    IndexBar ProgressBar { width: auto; }
    IndexBar #index-count { width: auto; margin: 0 1; }
    IndexBar #index-path { width: 1fr; color: $text-muted; }
    """

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.done = self.total = 0

    def compose(self) -> ComposeResult:
        yield Label("Indexing", id="index-title")
        yield ProgressBar(total=None, show_eta=False, show_percentage=True)
        yield Label("", id="index-count")
        yield Label("", id="index-path")

    def show(self, done: int, total: int, path: str) -> None:
        """Where the sync is; `done` < 0: it is over (the bar goes)."""
        if done < 0:
            self.remove_class("-shown")
            return
        self.done, self.total = done, total
        self.add_class("-shown")
        bar = self.query_one(ProgressBar)
        if total > 0:
            bar.update(total=total, progress=done)
            self.query_one("#index-count", Label).update(f"{done:,}/{total:,} files")
        else:  # the files are being listed: the bar pulses until their number is known
            bar.update(total=None)
            self.query_one("#index-count", Label).update("listing files")
        shown = "" if path == "starting" else path
        self.query_one("#index-path", Label).update(clip_path(shown, 60))
