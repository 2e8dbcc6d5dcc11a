"""The model requests in flight in this process, for front ends to show while a person waits.

`core.models.build_client` hands a `ModelActivity` to the `LLMClient` as its activity sink;
`Services.activity` is the same object. A front end reads `calls()` on a timer (elapsed time,
tokens so far) and may add a listener to hear at once when a call starts or ends.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from local_llm import CallActivity

Listener = Callable[[CallActivity], None]
RECENT = 20


class ModelActivity:
    """Live model calls, oldest first, and the latest finished ones.

    With a server that answers one request at a time (llama.cpp's server started with
    `--parallel 1`, Ollama by default), the oldest live call is the one being answered and the
    others wait behind it. Thread-safe: embeddings may be requested from worker threads.
    Listeners hear of every start and end, never of each token (too many: read `calls()`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[int, CallActivity] = {}
        self._recent: deque[CallActivity] = deque(maxlen=RECENT)
        self.listeners: list[Listener] = []

    def __call__(self, activity: CallActivity) -> None:
        """The client's activity sink."""
        with self._lock:
            if activity.phase == "finished":
                self._live.pop(activity.call_id, None)
                self._recent.appendleft(activity)
            else:
                self._live[activity.call_id] = activity
        if activity.phase != "tokens":
            for listener in list(self.listeners):
                listener(activity)

    def calls(self, run_id: str | None = None) -> list[CallActivity]:
        """The live calls (of one run when given), the one that started first first."""
        with self._lock:
            live = list(self._live.values())
        if run_id is not None:
            live = [call for call in live if call.run_id == run_id]
        return sorted(live, key=lambda call: call.started)

    def recent(self) -> list[CallActivity]:
        """The latest finished calls, newest first."""
        with self._lock:
            return list(self._recent)
