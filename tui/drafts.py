"""Drafts of what the user typed and has not sent yet: feedback, edits, tutor answers.

Closing a text box with `esc`, leaving a screen or quitting keeps the text; it is gone only
when it was sent or discarded on purpose. Drafts live in `drafts.json` in the data directory
(never in the vault), keyed by what they answer, e.g. `extraction.feedback:<run id>`.

The file is written by a thread of its own, moments after each change (the latest texts; the
process waits for it before it exits): replacing it costs a millisecond or more (ext4 flushes
a file renamed over another), paid on every keystroke on the event loop before.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)
FILE_NAME = "drafts.json"


class Drafts:
    """Unsent texts by key, saved to a JSON file at each change (small, atomic)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._texts: dict[str, str] = self._read()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="drafts")
        self._lock = threading.Lock()
        self._unsaved: dict[str, str] | None = None
        """The texts to write next (None: the file has them, or is about to)."""

    def _read(self) -> dict[str, str]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("drafts not read from %s: %s", self.path, exc)
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, key: str) -> str | None:
        """The draft kept for `key`, if any."""
        return self._texts.get(key)

    def keep(self, key: str, text: str) -> None:
        """Keep `text` for `key` (an empty or blank text clears the draft)."""
        if not text.strip():
            self.discard(key)
            return
        if self._texts.get(key) != text:
            self._texts[key] = text
            self._save()

    def discard(self, key: str) -> None:
        """The text was sent, or the user threw it away on purpose."""
        if self._texts.pop(key, None) is not None:
            self._save()

    def keys(self) -> list[str]:
        return list(self._texts)

    def _save(self) -> None:
        """Have the writer write the texts as they are now (once, however many changes come
        before it gets to it)."""
        if self.path is None:
            return
        with self._lock:
            queued = self._unsaved is not None
            self._unsaved = dict(self._texts)
        if not queued:
            self._writer.submit(self._write)

    def flush(self) -> None:
        """Wait until the file holds every change made so far."""
        self._writer.submit(lambda: None).result()

    def _write(self) -> None:
        assert self.path is not None
        with self._lock:
            texts, self._unsaved = self._unsaved, None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".drafts-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(texts, handle, ensure_ascii=False, indent=1)
            os.replace(tmp, self.path)
        except OSError as exc:  # the draft stays in memory for this session
            log.warning("drafts not saved to %s: %s", self.path, exc)
